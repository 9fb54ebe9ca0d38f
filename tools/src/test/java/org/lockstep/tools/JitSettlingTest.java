package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;

/** The warm-up verdict the benchmarks' ranks agree on after each batch: every rank stops alike (a rank that went on alone would hang in the next agreement). */
@Timeout(60)
class JitSettlingTest {
    private static final long HOUR = 3_600_000_000_000L;

    /** The verdict each of two ranks (threads over the mailbox transport) stops on, agreeing until one is not GO_ON. */
    private static Map<Integer, JitSettling.Verdict> verdicts(ToLongFunction<Integer> limitOfRank) {
        Map<Integer, JitSettling.Verdict> verdicts = new ConcurrentHashMap<>();
        Lockstep.provider("mailbox").runInThreads(JobOptions.ofRanks(2).with(JobSettings.DEVICE_PROPERTY, "emulated"), world -> {
            JitSettling jit = new JitSettling();
            long limit = limitOfRank.applyAsLong(world.rank());
            JitSettling.Verdict verdict;
            while ((verdict = jit.agree(world, System.nanoTime(), limit)) == JitSettling.Verdict.GO_ON) {
                // another batch: nothing to run here but the agreement itself
            }
            verdicts.put(world.rank(), verdict);
        });
        return verdicts;
    }

    /**
     * The verdict of two ranks whose JIT compiles {@code compileMillisPerBatch[rank]} in each 100 ms
     * batch of their own clocks, rank 1's window starting a batch after rank 0's, with a limit of 100
     * batches: the clocks are the test's, so that what the JIT did when is decided, not timed.
     */
    private static Map<Integer, JitSettling.Verdict> verdictsOnTestClocks(long[] compileMillisPerBatch) {
        long batch = 100_000_000L;
        Map<Integer, JitSettling.Verdict> verdicts = new ConcurrentHashMap<>();
        Lockstep.provider("mailbox").runInThreads(JobOptions.ofRanks(2).with(JobSettings.DEVICE_PROPERTY, "emulated"), world -> {
            int rank = world.rank();
            AtomicLong now = new AtomicLong(rank * batch); // rank 1 starts its window a batch later
            JitSettling jit = new JitSettling(now::get, () -> now.get() / batch * compileMillisPerBatch[rank]);
            JitSettling.Verdict verdict;
            long batchesRun = 0;
            do {
                now.set(++batchesRun * batch);
            } while ((verdict = jit.agree(world, 0, 100 * batch)) == JitSettling.Verdict.GO_ON);
            verdicts.put(rank, verdict);
        });
        return verdicts;
    }

    @Test
    void ranksWhoseWindowsStartedABatchApartAgreeTheirJitIsQuiet() {
        // each rank ending its own window once it was long enough judged in alternate batches: never both quiet at once
        assertEquals(Map.of(0, JitSettling.Verdict.QUIET, 1, JitSettling.Verdict.QUIET), verdictsOnTestClocks(new long[] {0, 0}));
    }

    @Test
    void aRankWhoseJitStillCompilesIsNotTakenForQuiet() {
        // 5 ms of compiling in each 100 ms batch is 5 %, over the 2 % a quiet JIT may take
        assertEquals(Map.of(0, JitSettling.Verdict.PAST_LIMIT, 1, JitSettling.Verdict.PAST_LIMIT), verdictsOnTestClocks(new long[] {0, 5}));
    }

    @Test
    void aRankPastItsLimitStopsEveryRank() {
        long now = System.nanoTime();
        Map<Integer, JitSettling.Verdict> verdicts = verdicts(rank -> rank == 1 ? now : now + HOUR);
        assertEquals(Map.of(0, JitSettling.Verdict.PAST_LIMIT, 1, JitSettling.Verdict.PAST_LIMIT), verdicts);
    }

    @Test
    void ranksThatStillWantTimeGoOnWhateverTheirJit() {
        Map<Integer, JitSettling.Verdict> verdicts = new ConcurrentHashMap<>();
        Lockstep.provider("mailbox").runInThreads(JobOptions.ofRanks(2).with(JobSettings.DEVICE_PROPERTY, "emulated"), world -> {
            long now = System.nanoTime();
            // rank 0 wants an hour more; rank 1 is past its deadline and not past its limit
            verdicts.put(world.rank(), new JitSettling().agree(world, world.rank() == 0 ? now + HOUR : now, now + HOUR));
        });
        assertEquals(Map.of(0, JitSettling.Verdict.GO_ON, 1, JitSettling.Verdict.GO_ON), verdicts);
    }

    @Test
    void ranksWithinTheirLimitsEndWithOneVerdict() {
        long now = System.nanoTime();
        Map<Integer, JitSettling.Verdict> verdicts = verdicts(rank -> now + 30_000_000_000L);
        assertEquals(2, verdicts.size());
        assertEquals(verdicts.get(0), verdicts.get(1), "both ranks stop on the same verdict");
        assertNotEquals(JitSettling.Verdict.GO_ON, verdicts.get(0));
    }
}
