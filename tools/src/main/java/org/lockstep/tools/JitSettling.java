package org.lockstep.tools;

import java.lang.foreign.MemorySegment;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;

/**
 * Whether this JVM's JIT has gone quiet, for benchmarks that warm up until it has. A warm-up by
 * time alone is not enough on a loaded host: with 4 ranks on 2 cores at load 12-20 the compiler
 * threads were still compiling the barrier's path at level 3 twenty seconds into a run (Dec 2026,
 * -XX:+LogCompilation), so rows timed after a 4 s warm-up timed interpreted code and the compile
 * queue's CPU use (p99 8-15 ms, against 0.1-3.6 ms with -XX:TieredStopAtLevel=1 in the same runs).
 *
 * <p>The ranks judge one window together: a window ends at every rank in the same agreement, when
 * every rank's is long enough ({@link #conclude}). Each rank once ended its own as soon as it was
 * long enough, so two ranks whose windows had started a batch apart judged in alternate batches,
 * each saying "not quiet" whenever the other said "quiet": half of {@code bench rma}'s 8 B rows ran
 * to the 60 s limit so, while the JIT compiled a method every second or two (session 16).
 */
final class JitSettling {
    /** The JIT counts as quiet when it compiled for at most this share of a window's wall time. */
    private static final double QUIET_SHARE = 0.02;
    /** The shortest window judged: the JIT's clock counts in milliseconds. */
    private static final long WINDOW_NANOS = 500_000_000L;

    /** A rank's say after a warm-up batch; a byte, for the pair of ranks that trade it in a message. */
    static final byte QUIET = 0;
    static final byte NOT_QUIET = 1;
    /** Its window is still too short to judge. */
    static final byte WINDOW_OPEN = 2;
    private static final byte WANTS_TIME = 3;
    private static final byte SAY_PAST_LIMIT = 4;

    private final LongSupplier nanoClock;
    /** The JIT's total compile time so far in milliseconds, or negative if this JVM cannot say. */
    private final LongSupplier compileMillis;
    private long windowStartNanos;
    private long windowStartCompileMillis;

    JitSettling() {
        this(System::nanoTime, jitCompileMillis());
    }

    /** With the clocks given (a test's, which decide what the JIT did when without timing anything). */
    JitSettling(LongSupplier nanoClock, LongSupplier compileMillis) {
        this.nanoClock = nanoClock;
        this.compileMillis = compileMillis;
        windowStartNanos = nanoClock.getAsLong();
        windowStartCompileMillis = compileMillis.getAsLong();
    }

    /**
     * This rank's say on the window so far: {@link #WINDOW_OPEN} while it is shorter than half a
     * second, else whether the JIT was quiet over it (quiet when this JVM cannot say). The window
     * goes on until {@link #conclude} ends it.
     */
    byte judge() {
        long elapsed = nanoClock.getAsLong() - windowStartNanos;
        if (elapsed < WINDOW_NANOS) {
            return WINDOW_OPEN;
        }
        long compiled = compileMillis.getAsLong();
        return compiled < 0 || (compiled - windowStartCompileMillis) * 1e6 <= QUIET_SHARE * elapsed ? QUIET : NOT_QUIET;
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

    /**
     * The verdict on every rank's say, each rank given the same says: when every rank judged its
     * window, every rank's window ends here and the next starts, so that all of them judge the same
     * stretch of the run next time.
     */
    Verdict conclude(byte[] says) {
        if (allAre(says, QUIET)) {
            return Verdict.QUIET;
        }
        for (byte say : says) {
            if (say == SAY_PAST_LIMIT) {
                return Verdict.PAST_LIMIT;
            }
        }
        boolean everyRankJudged = true;
        for (byte say : says) {
            everyRankJudged &= say == QUIET || say == NOT_QUIET;
        }
        if (everyRankJudged) {
            windowStartNanos = nanoClock.getAsLong();
            windowStartCompileMillis = compileMillis.getAsLong();
        }
        return Verdict.GO_ON;
    }

    /**
     * Collective over {@code world}, after each warm-up batch: each rank says whether it still wants
     * time (before {@code deadlineNanos}), is past {@code limitNanos}, or how its JIT's window stands,
     * and every rank's say is gathered, so that all of them decide alike (a bcast from rank 0 could not
     * carry the others' JIT). The deadlines are on this object's clock ({@link System#nanoTime}).
     */
    Verdict agree(Communicator world, long deadlineNanos, long limitNanos) {
        long now = nanoClock.getAsLong();
        byte mine = now < deadlineNanos ? WANTS_TIME : now >= limitNanos ? SAY_PAST_LIMIT : judge();
        byte[] says = new byte[world.size()];
        world.allgather(MemorySegment.ofArray(new byte[] {mine}), 1, Datatype.BYTE, MemorySegment.ofArray(says));
        return conclude(says);
    }

    private static boolean allAre(byte[] says, byte say) {
        for (byte s : says) {
            if (s != say) {
                return false;
            }
        }
        return true;
    }

    private static LongSupplier jitCompileMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return () -> -1;
        }
        return jit::getTotalCompilationTime;
    }
}
