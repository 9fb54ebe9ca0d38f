package org.lockstep.tools;

import java.lang.foreign.MemorySegment;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;

/**
 * Whether this JVM's JIT has gone quiet, for benchmarks that warm up until it has. A warm-up by
 * time alone is not enough on a loaded host: with 4 ranks on 2 cores at load 12-20 the compiler
 * threads were still compiling the barrier's path at level 3 twenty seconds into a run (Dec 2026,
 * -XX:+LogCompilation), so rows timed after a 4 s warm-up timed interpreted code and the compile
 * queue's CPU use (p99 8-15 ms, against 0.1-3.6 ms with -XX:TieredStopAtLevel=1 in the same runs).
 */
final class JitSettling {
    /** The JIT counts as quiet when it compiled for at most this share of a window's wall time. */
    private static final double QUIET_SHARE = 0.02;
    /** The shortest window judged: the JIT's clock counts in milliseconds. */
    private static final long WINDOW_NANOS = 500_000_000L;

    private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    private long windowStartNanos = System.nanoTime();
    private long windowStartCompileMillis = compileMillis();

    /**
     * Whether the JIT was quiet over the window that ends now, if it is long enough; a new window
     * starts then. False while the window is shorter; true when this JVM cannot say.
     */
    boolean quiet() {
        long now = System.nanoTime();
        if (now - windowStartNanos < WINDOW_NANOS) {
            return false;
        }
        long compiled = compileMillis();
        boolean quiet = compiled < 0 || (compiled - windowStartCompileMillis) * 1e6 <= QUIET_SHARE * (now - windowStartNanos);
        windowStartNanos = now;
        windowStartCompileMillis = compiled;
        return quiet;
    }

    /** Where a warm-up of every rank stands after a batch, as the ranks agreed ({@link #agree}). */
    enum Verdict {
        /** Another batch: a rank wants more time or its JIT is not quiet yet. */
        GO_ON,
        /** Every rank's JIT is quiet. */
        QUIET,
        /** A rank is past the limit: stop, JIT quiet or not. */
        PAST_LIMIT
    }

    /** A rank's say after a warm-up batch. */
    private static final int QUIET = 0;
    private static final int NOT_QUIET = 1;
    private static final int WANTS_TIME = 2;
    private static final int SAY_PAST_LIMIT = 3;

    /**
     * Collective over {@code world}, after each warm-up batch: each rank says whether it still wants
     * time (before {@code deadlineNanos}), is past {@code limitNanos}, or whether its JIT is quiet, and
     * every rank's say is gathered, so that all of them decide alike (a bcast from rank 0 could not
     * carry the others' JIT).
     */
    Verdict agree(Communicator world, long deadlineNanos, long limitNanos) {
        long now = System.nanoTime();
        int mine = now < deadlineNanos ? WANTS_TIME : now >= limitNanos ? SAY_PAST_LIMIT : quiet() ? QUIET : NOT_QUIET;
        int[] says = new int[world.size()];
        world.allgather(MemorySegment.ofArray(new int[] {mine}), 1, Datatype.INT, MemorySegment.ofArray(says));
        if (Arrays.stream(says).allMatch(say -> say == QUIET)) {
            return Verdict.QUIET;
        }
        return Arrays.stream(says).anyMatch(say -> say == SAY_PAST_LIMIT) ? Verdict.PAST_LIMIT : Verdict.GO_ON;
    }

    private long compileMillis() {
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }
}
