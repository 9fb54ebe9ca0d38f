package org.lockstep.tools;

import java.io.File;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

import org.lockstep.api.LockstepProvider;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep classpath}: what a program written for the Open MPI Java bindings puts on
 * {@code javac}'s and {@code java}'s class path, in the spirit of {@code mpijavac}: the
 * {@code mpi} bindings, Lockstep's API and the installed providers (messaging and device) with what they need.
 */
@Command(name = "classpath", mixinStandardHelpOptions = true,
        description = "Prints the class path for programs of the Open MPI Java bindings (package mpi): "
                + "javac -cp \"$(lockstep classpath --compile)\" Main.java; java -cp \"$(lockstep classpath):.\" Main "
                + "(one rank on its own, or under mpirun/srun); lockstep run -n 4 -cp . Main for a job.")
final class ClasspathCommand implements Callable<Integer> {
    static final String BINDINGS_MODULE = "org.lockstep.compat.mpi";
    /** The conformance kit registers a device that wraps other devices for its own checks; programs never need it. */
    private static final String CONFORMANCE_KIT = "org.lockstep.conformance";

    @Spec
    CommandSpec spec;

    @Option(names = "--compile", description = "Only what compiling needs: the mpi bindings' jar.")
    boolean compile;

    @Override
    public Integer call() {
        Set<Path> entries = new LinkedHashSet<>();
        entries.add(ThreadRanks.mpiBindings());
        if (!compile) {
            Set<String> modules = new LinkedHashSet<>();
            modules.add(BINDINGS_MODULE);
            ModuleLayer.boot().modules().stream()
                    .filter(m -> !m.getName().equals(CONFORMANCE_KIT))
                    .filter(m -> m.getDescriptor().provides().stream().anyMatch(p -> isLockstepService(p.service())))
                    .forEach(m -> modules.add(m.getName()));
            for (String module : requiredClosure(modules)) {
                location(module).ifPresent(entries::add);
            }
        }
        spec.commandLine().getOut().println(String.join(File.pathSeparator, entries.stream().map(Path::toString).toList()));
        return 0;
    }

    /** A provider's or a device's service: Lockstep's API or SPI declares it. */
    private static boolean isLockstepService(String service) {
        String api = LockstepProvider.class.getPackageName();
        return service.startsWith(api + ".") || service.startsWith("org.lockstep.spi.");
    }

    /** {@code roots} and every module they require, transitively, in this JVM's boot layer (JDK modules left out). */
    private static Set<String> requiredClosure(Set<String> roots) {
        Set<String> seen = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>(roots);
        while (!todo.isEmpty()) {
            String name = todo.poll();
            if (name.startsWith("java.") || name.startsWith("jdk.") || !seen.add(name)) {
                continue;
            }
            ModuleLayer.boot().configuration().findModule(name).ifPresent(m ->
                    m.reference().descriptor().requires().forEach(r -> todo.add(r.name())));
        }
        return seen;
    }

    private static Optional<Path> location(String module) {
        return ModuleLayer.boot().configuration().findModule(module)
                .flatMap(m -> m.reference().location())
                .filter(uri -> "file".equals(uri.getScheme()))
                .map(URI::getPath).map(Path::of);
    }
}
