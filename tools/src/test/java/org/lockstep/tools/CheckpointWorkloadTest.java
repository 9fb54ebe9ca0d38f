package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;

/** The checkpoint trials' workload, fault-free, as threads: deterministic results and a comparison that notices differences. */
@Timeout(120)
class CheckpointWorkloadTest {
    private static List<CheckpointWorkload.Result> run(int ranks, int iterations, JobOptions options) {
        CheckpointWorkload workload = new CheckpointWorkload(iterations, 3);
        ConcurrentMap<Integer, CheckpointWorkload.Result> results = new ConcurrentHashMap<>();
        Lockstep.provider("mailbox").runInThreads(options, world -> results.put(world.rank(), workload.run(world)));
        return results.values().stream().sorted(java.util.Comparator.comparingInt(CheckpointWorkload.Result::rank)).toList();
    }

    @Test
    void faultFreeRunsAgreeWhateverTheWildcardOrder() {
        List<CheckpointWorkload.Result> first = run(4, 60, JobOptions.ofRanks(4));
        List<CheckpointWorkload.Result> second = run(4, 60, JobOptions.ofRanks(4));
        assertEquals(4, first.size());
        assertEquals(Optional.empty(), CheckpointWorkload.compare(first, second, 4));
        for (CheckpointWorkload.Result r : first) {
            assertEquals(0, r.lost() + r.duplicated() + r.corrupt(), r.line());
            assertTrue(r.checkpoints() > 0, "rank " + r.rank() + " reached its checkpoints: " + r.line());
        }
        // Ranks compute different digests: the digest depends on the rank's traffic, not only on the iteration count.
        assertNotEquals(first.get(0).digest(), first.get(1).digest());
        assertNotEquals(first.getFirst().digest(), run(4, 61, JobOptions.ofRanks(4)).getFirst().digest());
    }

    @Test
    void withTheMessageLogOnTheResultsAreTheSameAndCheckpointsAreDurable() {
        JobOptions logged = JobOptions.ofRanks(4).with(org.lockstep.api.Checkpoints.ENABLED_PROPERTY, "true");
        java.util.concurrent.atomic.AtomicBoolean durable = new java.util.concurrent.atomic.AtomicBoolean(true);
        Lockstep.provider("mailbox").runInThreads(logged, world -> {
            if (!world.checkpoints().durable()) {
                durable.set(false);
            }
        });
        assertTrue(durable.get(), "the mailbox transport checkpoints durably with " + org.lockstep.api.Checkpoints.ENABLED_PROPERTY);
        assertEquals(Optional.empty(), CheckpointWorkload.compare(run(4, 60, JobOptions.ofRanks(4)), run(4, 60, logged), 4));
    }

    @Test
    void resultLinesParseBackAndTheLastLineOfARankCounts() {
        List<CheckpointWorkload.Result> results = run(3, 10, JobOptions.ofRanks(3));
        CheckpointWorkload.Result stale = new CheckpointWorkload.Result(1, 1, 2, 3, 4, 0, 0, 0, 0, 1, 0);
        StringBuilder out = new StringBuilder("[1] " + stale.line() + "\n");
        results.forEach(r -> out.append('[').append(r.rank()).append("] ").append(r.line()).append('\n'));
        assertEquals(results, CheckpointWorkload.Result.parseAll(out.toString(), 3));
    }

    @Test
    void theComparisonNamesWhatDiffers() {
        List<CheckpointWorkload.Result> reference = run(3, 10, JobOptions.ofRanks(3));
        CheckpointWorkload.Result r0 = reference.getFirst();
        CheckpointWorkload.Result wrongDigest = new CheckpointWorkload.Result(0, r0.digest() + 1, r0.wildcardSum(), r0.sentChain(),
                r0.receivedChain(), 0, 0, 0, r0.checkpoints(), 2, 1);
        assertTrue(CheckpointWorkload.compare(reference, List.of(wrongDigest, reference.get(1), reference.get(2)), 3).orElseThrow()
                .contains("rank 0: digest"));
        CheckpointWorkload.Result duplicated = new CheckpointWorkload.Result(0, r0.digest(), r0.wildcardSum(), r0.sentChain(),
                r0.receivedChain(), 0, 2, 0, r0.checkpoints(), 2, 1);
        assertTrue(CheckpointWorkload.compare(reference, List.of(duplicated, reference.get(1), reference.get(2)), 3).orElseThrow()
                .contains("duplicated=2"));
        CheckpointWorkload.Result reordered = new CheckpointWorkload.Result(0, r0.digest(), r0.wildcardSum(), r0.sentChain() ^ 1,
                r0.receivedChain(), 0, 0, 0, r0.checkpoints(), 2, 1);
        assertTrue(CheckpointWorkload.compare(reference, List.of(reordered, reference.get(1), reference.get(2)), 3).orElseThrow()
                .contains("re-matched differently"));
        assertTrue(CheckpointWorkload.compare(reference, reference.subList(0, 2), 3).orElseThrow().contains("results of 2 of 3 ranks"));
    }
}
