package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.lockstep.pcie.PeerJvm;

/**
 * A job of a test's peer class in separate JVMs over a /dev/shm device: one process a rank, each
 * started with this JVM's java and module path; their output is captured, not in the test log.
 */
final class PeerProcesses {
    /** A rank's command-line arguments after the peer class. */
    @FunctionalInterface
    interface Arguments {
        List<String> of(Path device, int rank, String jobKey);
    }

    private PeerProcesses() {
    }

    /**
     * Runs {@code peer} as {@code exits.length} ranks on the device {@code /dev/shm/lockstep-<name>-<pid>},
     * checks that rank r exits with {@code exits[r]} within two minutes, and returns each rank's output.
     */
    static List<String> run(String name, Class<?> peer, int[] exits, Arguments arguments) throws Exception {
        Path device = Path.of("/dev/shm", "lockstep-" + name + "-" + ProcessHandle.current().pid());
        String jobKey = Long.toHexString(System.nanoTime() ^ name.hashCode());
        List<Process> ranks = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int rank = 0; rank < exits.length; rank++) {
                Path log = Files.createTempFile("lockstep-" + name + "-" + rank, ".log");
                logs.add(log);
                ranks.add(new ProcessBuilder(PeerJvm.command("128m", peer, arguments.of(device, rank, jobKey).toArray(String[]::new)))
                        .redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            List<String> out = new ArrayList<>();
            for (int rank = 0; rank < exits.length; rank++) {
                Process p = ranks.get(rank);
                int r = rank;
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), () -> "rank " + r + " did not finish: " + read(logs.get(r)));
                out.add(read(logs.get(rank)));
                assertEquals(exits[rank], p.exitValue(), "exit code of rank " + rank + ": " + out.get(rank));
            }
            return out;
        } finally {
            for (Process p : ranks) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            for (Path log : logs) {
                Files.deleteIfExists(log);
            }
            Files.deleteIfExists(device);
            assertFalse(Files.exists(device));
        }
    }

    /** The number a peer printed as {@code key=N}. */
    static long value(String output, String key) {
        Matcher m = Pattern.compile("\\b" + key + "=(\\d+)").matcher(output);
        assertTrue(m.find(), () -> "no " + key + "= in: " + output);
        return Long.parseLong(m.group(1));
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }
}
