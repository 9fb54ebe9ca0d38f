package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
