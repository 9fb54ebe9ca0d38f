package org.lockstep.pcie.mailbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

import org.lockstep.pcie.layout.FormatterProcess;

/**
 * Which processes can be checked by process id: those on the same booted kernel and in the same
 * PID namespace as this one. The identity is a hash of the kernel's boot id and the PID
 * namespace; a process id together with its start time names one process for its lifetime.
 */
final class HostIdentity {
    /** This process's host identity; 0 if it cannot be determined (then only heartbeats are used). */
    static final long CURRENT = compute();

    private HostIdentity() {
    }

    private static long compute() {
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            String namespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
            long hash = 0xcbf29ce484222325L;
            for (char c : (boot + "|" + namespace).toCharArray()) {
                hash ^= c;
                hash *= 0x100000001b3L;
            }
            return hash == 0 ? 1 : hash;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return 0;
        }
    }

    /** A killed process that its parent has not reaped yet still answers signals; its state says Z. */
    private static boolean isZombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int end = stat.lastIndexOf(')');
            return end > 0 && end + 2 < stat.length() && stat.charAt(end + 2) == 'Z';
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    /** This process as the superblock names a formatter. */
    static FormatterProcess currentProcess() {
        return new FormatterProcess(ProcessHandle.current().pid(), currentStartMillis(), CURRENT);
    }

    /** Start time of this process, in milliseconds since the epoch (0 if unknown). */
    static long currentStartMillis() {
        return ProcessHandle.current().info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    /** Whether the process {@code pid} that started at {@code startMillis} still runs (on this host). */
    static boolean isAlive(long pid, long startMillis) {
        return running(pid, startMillis).isPresent();
    }

    /**
     * The process {@code pid} that started at {@code startMillis}, if it still runs (on this host):
     * a handle whose {@link #stillAlive} check needs no start time, because the JDK's handle keeps
     * the start time it read and tells a process that reuses the id apart.
     */
    static Optional<ProcessHandle> running(long pid, long startMillis) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !stillAlive(handle.get())) {
            return Optional.empty();
        }
        if (startMillis == 0) {
            return handle;
        }
        // Another process may have been given the same id since: compare start times.
        boolean same = handle.get().info().startInstant().map(Instant::toEpochMilli).map(t -> Math.abs(t - startMillis) < 1000).orElse(true);
        return same ? handle : Optional.empty();
    }

    /** Whether the process of {@code handle} still runs and has not died unreaped (a zombie). */
    static boolean stillAlive(ProcessHandle handle) {
        return handle.isAlive() && !isZombie(handle.pid());
    }
}
