package org.lockstep.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Sizes;

/**
 * What the launcher checks before it forks a JVM per rank: that the host has the memory for them.
 * Each rank commits at least its initial heap ({@code -Xms}) plus what a JVM needs besides its heap
 * ({@link #JVM_FOOTPRINT}); the host offers the smaller of the kernel's {@code MemAvailable} and
 * the headroom of this process's memory cgroup (v1 or v2, every level up). Asking for more is
 * refused, naming the figures, instead of forking JVMs until the kernel or the cgroup kills them.
 */
final class LaunchLimits {
    /** Memory a small JVM commits besides its heap (metaspace, code cache, thread stacks, GC): about 40 MiB measured here. */
    static final long JVM_FOOTPRINT = 40L << 20;
    private static final long UNLIMITED = 1L << 62;

    private LaunchLimits() {
    }

    /** Refuses {@code ranks} JVMs started with {@code jvmOptions} if they cannot fit in this host's memory. */
    static void check(int ranks, List<String> jvmOptions) {
        long perRank = initialHeap(jvmOptions) + JVM_FOOTPRINT;
        long needed = Math.multiplyHigh(ranks, perRank) != 0 ? Long.MAX_VALUE : ranks * perRank;
        OptionalLong available = availableMemory();
        if (available.isPresent() && needed > available.getAsLong()) {
            throw new LockstepException(ErrorClass.NO_MEM, "-n " + ranks + ": " + ranks + " JVMs of at least " + mib(perRank)
                    + " MiB each (initial heap " + mib(initialHeap(jvmOptions)) + " MiB + " + mib(JVM_FOOTPRINT) + " MiB besides) need "
                    + mib(needed) + " MiB, but this host has " + mib(available.getAsLong()) + " MiB available"
                    + "; run fewer ranks or smaller JVMs (--jvm-option -Xms64m --jvm-option -Xmx64m)");
        }
    }

    /** The heap each JVM commits at start: {@code -Xms} (the last one given), else the JVM's small default. */
    static long initialHeap(List<String> jvmOptions) {
        long initial = 8L << 20;
        for (String option : jvmOptions) {
            if (option.startsWith("-Xms")) {
                initial = Sizes.parse("-Xms", option.substring(4));
            } else if (option.startsWith("-XX:InitialHeapSize=")) {
                initial = Sizes.parse("-XX:InitialHeapSize", option.substring("-XX:InitialHeapSize=".length()));
            }
        }
        return initial;
    }

    /** The memory this process may still use: MemAvailable, bounded by its memory cgroup's headroom. */
    static OptionalLong availableMemory() {
        OptionalLong kernel = memAvailable();
        OptionalLong cgroup = cgroupHeadroom();
        if (kernel.isEmpty()) {
            return cgroup;
        }
        return OptionalLong.of(cgroup.isPresent() ? Math.min(kernel.getAsLong(), cgroup.getAsLong()) : kernel.getAsLong());
    }

    private static OptionalLong memAvailable() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return OptionalLong.of(Long.parseLong(line.replaceAll("\\D", "")) << 10);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux, or no such line: no bound from here
        }
        return OptionalLong.empty();
    }

    /** The smallest limit minus usage over this process's memory cgroup and its ancestors. */
    private static OptionalLong cgroupHeadroom() {
        List<String> membership;
        try {
            membership = Files.readAllLines(Path.of("/proc/self/cgroup"));
        } catch (IOException e) {
            return OptionalLong.empty();
        }
        for (String line : membership) {
            String[] fields = line.split(":", 3);
            if (fields.length < 3) {
                continue;
            }
            if (fields[1].isEmpty() && Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers"))) {
                return headroom(Path.of("/sys/fs/cgroup"), fields[2], "memory.max", "memory.current");
            }
            if (List.of(fields[1].split(",")).contains("memory")) {
                return headroom(Path.of("/sys/fs/cgroup/memory"), fields[2], "memory.limit_in_bytes", "memory.usage_in_bytes");
            }
        }
        return OptionalLong.empty();
    }

    private static OptionalLong headroom(Path root, String group, String limitFile, String usageFile) {
        long smallest = Long.MAX_VALUE;
        Path dir = root.resolve(group.replaceFirst("^/", ""));
        if (!Files.isDirectory(dir)) {
            dir = root; // a namespaced view shows this process's group as the root
        }
        for (; dir != null && dir.startsWith(root); dir = dir.getParent()) {
            OptionalLong limit = number(dir.resolve(limitFile));
            OptionalLong usage = number(dir.resolve(usageFile));
            if (limit.isPresent() && limit.getAsLong() < UNLIMITED && usage.isPresent()) {
                smallest = Math.min(smallest, Math.max(0, limit.getAsLong() - usage.getAsLong()));
            }
        }
        return smallest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(smallest);
    }

    private static OptionalLong number(Path file) {
        try {
            String text = Files.readString(file).trim();
            return text.equals("max") ? OptionalLong.of(Long.MAX_VALUE) : OptionalLong.of(Long.parseLong(text));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static long mib(long bytes) {
        return bytes >> 20;
    }
}
