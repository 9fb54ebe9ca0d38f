package org.lockstep.pcie;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a second JVM that runs a test's peer class inside module org.lockstep.pcie. */
public final class PeerJvm {
    private static final String MODULE = "org.lockstep.pcie";

    private PeerJvm() {
    }

    /** This JVM's java and module path, the test classes patched into the module, {@code main} with {@code arguments}. */
    public static List<String> command(String maxHeap, Class<?> main, String... arguments) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + maxHeap, "--enable-native-access=" + MODULE, "--module-path", System.getProperty("jdk.module.path"),
                "--patch-module", MODULE + "=" + testClasses(), "--module", MODULE + "/" + main.getName()));
        command.addAll(List.of(arguments));
        return command;
    }

    /** Where surefire's patch of the module says the test classes are (else the module's target/test-classes). */
    private static String testClasses() {
        String patch = System.getProperty("jdk.module.patch.0");
        if (patch != null && patch.startsWith(MODULE + "=")) {
            return patch.substring(MODULE.length() + 1);
        }
        return Path.of(System.getProperty("user.dir"), "target", "test-classes").toString();
    }
}
