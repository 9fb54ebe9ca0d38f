package org.lockstep.tools;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;

/**
 * The JVM of one EM-BSP real processor, sized from its memory budget ({@code --memory}) so that
 * the process stays within the budget plus a fixed allowance: the budget holds the simulator's
 * partitions, staging and boundary cache (off-heap, checked by the simulator); the allowance
 * ({@link #ALLOWANCE}) holds the JVM's own base — a heap of {@link #MIN_HEAP}, class metadata,
 * compiled code, the I/O threads' stacks; the heap the VPs need beyond that is taken out of the
 * budget.
 *
 * <p>What a VP costs on the heap was measured (prefix sums, 1 024–16 384 VPs on virtual threads,
 * peak live heap after full GCs, collectors' filler objects left out): 17.3 KiB at 16 384 VPs, of
 * which 14 KiB are the stack chunks of its parked virtual thread (a VP waits ~28 frames deep, in
 * 3–4 chunks) and the rest its communicators, context, allocator and scheduler state. Sized at
 * {@link #HEAP_PER_VP}, with the application's own per-rank heap on top, all in the old
 * generation: every VP reaches a collective before any leaves it, so all of them hold this at once.
 * The young generation is fixed ({@code -Xmn}) so that a large heap goes to the old generation
 * that holds them, and the JVM exits on OutOfMemoryError rather than leave its VPs waiting forever.
 */
record EmbspJvm(long budget, int localVps, long heap, long young, long simulatorBudget) {
    static final long MIB = 1L << 20;
    static final long KIB = 1L << 10;
    /** What the process may hold beyond the budget. */
    static final long ALLOWANCE = 128 * MIB;
    /** The smallest heap, part of the allowance: a few hundred VPs of the built-in applications fit in it. */
    static final long MIN_HEAP = 48 * MIB;
    /** Old generation of a run's own bookkeeping (measured ~3 MiB live) and a rooted call's O(v) layout at its root. */
    static final long OLD_BASE = 16 * MIB;
    /** Heap per VP: 17.3 KiB measured live, and a third more for garbage between full collections. */
    static final long HEAP_PER_VP = 24 * KIB;
    static final long MIN_YOUNG = 16 * MIB;
    static final long MAX_YOUNG = 32 * MIB;
    /** Direct buffers: the simulator does its I/O on its own off-heap memory and uses none. */
    static final long DIRECT_MEMORY = 16 * MIB;

    /** The JVM that only starts processor JVMs and waits for them. */
    static final List<String> LAUNCHER_OPTIONS = List.of("-Xms32m", "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /**
     * The sizing for a processor of {@code localVps} VPs within {@code budget} bytes (null: half of
     * physical memory, as the simulator's default), each rank of the program holding
     * {@code programHeapPerVp} bytes of heap of its own at most.
     */
    static EmbspJvm of(Long budget, int localVps, long programHeapPerVp) {
        long b = budget != null ? budget : physicalMemory() / 2;
        long old = OLD_BASE + localVps * (HEAP_PER_VP + programHeapPerVp);
        long young = Math.clamp(old / 2, MIN_YOUNG, MAX_YOUNG);
        long heap = Math.max(MIN_HEAP, (old + young + MIB - 1) / MIB * MIB);
        return new EmbspJvm(b, localVps, heap, young, b - (heap - MIN_HEAP));
    }

    /** Options of the processor's JVM. */
    List<String> options() {
        return List.of("-Xms" + heap / MIB + "m", "-Xmx" + heap / MIB + "m", "-Xmn" + young / MIB + "m", "-XX:+AlwaysPreTouch",
                "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=" + DIRECT_MEMORY / MIB + "m", "-XX:+ExitOnOutOfMemoryError");
    }

    /** What the sizing did, for the user. */
    String describe() {
        return String.format(Locale.ROOT, "JVM sized from --memory %d MiB for %d VPs: heap %d MiB (young %d MiB; %d KiB per VP and"
                        + " the program's own; beyond %d MiB taken from the budget), direct buffers %d MiB, serial GC; the simulator's"
                        + " partitions, staging and cache keep within %d MiB, the process within the budget + %d MiB",
                budget / MIB, localVps, heap / MIB, young / MIB, HEAP_PER_VP / KIB, MIN_HEAP / MIB, DIRECT_MEMORY / MIB,
                simulatorBudget / MIB, ALLOWANCE / MIB);
    }

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 4 * Runtime.getRuntime().maxMemory();
    }
}
