package org.lockstep.tools;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;

/**
 * The JVM of one EM-BSP real processor, sized from its memory budget ({@code --memory}) so that
 * the process stays within the budget plus a fixed allowance: the budget holds the simulator's
 * partitions, staging and boundary cache (off-heap, checked by the simulator); the allowance
 * ({@link #ALLOWANCE}) holds the JVM's own base — a heap of {@link #BASE_HEAP}, class metadata,
 * compiled code, the I/O threads' stacks; what the VPs' threads need on the heap beyond that
 * (a virtual thread's stack lives on the heap while it waits) is taken out of the budget.
 */
record EmbspJvm(long budget, int localVps, long heap, long simulatorBudget) {
    static final long MIB = 1L << 20;
    /** What the process may hold beyond the budget. */
    static final long ALLOWANCE = 128 * MIB;
    /** Heap of the JVM itself and of a run's bookkeeping, with room for {@link #VPS_IN_BASE} VPs. */
    static final long BASE_HEAP = 48 * MIB;
    static final int VPS_IN_BASE = 1024;
    /** Heap per VP: its thread's stack while it waits, its communicator and call state. */
    static final long HEAP_PER_VP = 8L << 10;
    /** Direct buffers: the simulator does its I/O on its own off-heap memory and uses none. */
    static final long DIRECT_MEMORY = 16 * MIB;

    /** The JVM that only starts processor JVMs and waits for them. */
    static final List<String> LAUNCHER_OPTIONS = List.of("-Xms32m", "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /** The sizing for a processor of {@code localVps} VPs within {@code budget} bytes (null: half of physical memory, as the simulator's default). */
    static EmbspJvm of(Long budget, int localVps) {
        long b = budget != null ? budget : physicalMemory() / 2;
        long beyondBase = (long) Math.max(0, localVps - VPS_IN_BASE) * HEAP_PER_VP;
        long heap = BASE_HEAP + (beyondBase + MIB - 1) / MIB * MIB;
        return new EmbspJvm(b, localVps, heap, b - (heap - BASE_HEAP));
    }

    /** Options of the processor's JVM. */
    List<String> options() {
        return List.of("-Xms" + heap / MIB + "m", "-Xmx" + heap / MIB + "m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC",
                "-XX:MaxDirectMemorySize=" + DIRECT_MEMORY / MIB + "m");
    }

    /** What the sizing did, for the user. */
    String describe() {
        return String.format(Locale.ROOT, "JVM sized from --memory %d MiB for %d VPs: heap %d MiB (%d MiB with room for %d VPs,"
                        + " %d KiB for each further one, taken from the budget), direct buffers %d MiB, serial GC; the simulator's"
                        + " partitions, staging and cache keep within %d MiB, the process within the budget + %d MiB",
                budget / MIB, localVps, heap / MIB, BASE_HEAP / MIB, VPS_IN_BASE, HEAP_PER_VP >> 10, DIRECT_MEMORY / MIB,
                simulatorBudget / MIB, ALLOWANCE / MIB);
    }

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 4 * Runtime.getRuntime().maxMemory();
    }
}
