package org.lockstep.conformance.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.RuleSkipped;
import org.lockstep.conformance.RuleViolation;

/** The runner on the in-repo mailbox transport: clean runs, deadlocks, deadlines, failures, leftovers. */
class WorldRunnerTest {
    private static final LockstepProvider MAILBOX = Lockstep.find("mailbox").orElseThrow();
    private static final RunLimits LIMITS = new RunLimits(Duration.ofSeconds(20), Duration.ofMillis(500), true);

    private static JobOptions world(int ranks) {
        return new JobOptions(ranks, Map.of("lockstep.device", "emulated", "lockstep.mailbox.heapPerRank", "256k"));
    }

    @Test
    void aCleanRunIsOk() {
        RunResult r = WorldRunner.run(MAILBOX, world(3), LIMITS, rank -> {
            int next = (rank.rank() + 1) % rank.size();
            int prev = (rank.rank() + rank.size() - 1) % rank.size();
            int[] in = new int[1];
            rank.comm().sendrecv(java.lang.foreign.MemorySegment.ofArray(new int[] {rank.rank()}), 1, org.lockstep.api.Datatype.INT,
                    next, 0, java.lang.foreign.MemorySegment.ofArray(in), 1, org.lockstep.api.Datatype.INT, prev, 0);
            RuleViolation.checkEquals(prev, in[0], "value from the previous rank");
        });
        assertTrue(r.ok(), () -> r.failures() + " " + r.hang());
    }

    @Test
    void aDeadlockIsStoppedAfterTheStallTimeoutAndNamesEachRanksLastOperation() {
        RunResult r = WorldRunner.run(MAILBOX, world(2), LIMITS, rank -> rank.comm().recv(new int[1], 1 - rank.rank(), 7));
        assertTrue(r.hang().isPresent(), "both ranks wait for each other");
        HangReport h = r.hang().get();
        assertTrue(h.reason().startsWith("deadlock"), h.reason());
        assertTrue(r.elapsed().compareTo(Duration.ofSeconds(10)) < 0, "stopped by the stall timeout, not the deadline: " + r.elapsed());
        for (HangReport.RankSnapshot s : h.ranks()) {
            assertTrue(s.state().contains("recv(1 x INT from rank " + (1 - s.rank()) + ", tag 7)"), s.state());
            assertTrue(s.stack().contains("lockstep-rank-" + s.rank()), s.stack());
        }
        assertTrue(!r.leaked(), "the stopped ranks unwound");
    }

    @Test
    void aRankThatNeverBlocksRunsIntoTheDeadline() {
        RunLimits shortDeadline = new RunLimits(Duration.ofMillis(700), Duration.ofSeconds(5), false);
        RunResult r = WorldRunner.run(MAILBOX, world(1), shortDeadline, rank -> {
            while (true) {
                rank.checkAborted();
                Thread.onSpinWait();
            }
        });
        assertTrue(r.hang().isPresent());
        assertTrue(r.hang().get().reason().contains("deadline of 700 ms"), r.hang().get().reason());
        assertTrue(r.hang().get().ranks().getFirst().state().contains("running its body"), r.hang().get().ranks().getFirst().state());
    }

    @Test
    void theRankThatFailsFirstIsTheRootFailure() {
        RunResult r = WorldRunner.run(MAILBOX, world(2), LIMITS, rank -> {
            if (rank.rank() == 1) {
                throw new RuleViolation("rank 1 saw something wrong");
            }
            rank.comm().recv(new int[1], 1, 0);
        });
        assertEquals(1, r.rootFailure().orElseThrow().rank());
        assertTrue(r.rootFailure().get().toString().contains("rank 1 saw something wrong"));
    }

    @Test
    void aRankThatSkipsTheRuleStopsItsPeersKitWaitsAndSkipsTheRun() {
        // a stall timeout and a deadline far beyond the test's: only the skip itself can end the peer's wait in time
        RunLimits patient = new RunLimits(Duration.ofMinutes(5), Duration.ofMinutes(5), false);
        RuleSkipped skipped = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(RuleSkipped.class,
                () -> WorldRunner.run(MAILBOX, world(2), patient, rank -> {
                    if (rank.rank() == 1) {
                        throw new RuleSkipped("no power-loss emulation on this device");
                    }
                    rank.awaitSignalWithoutProvider("raised by nobody");
                })));
        assertEquals("no power-loss emulation on this device", skipped.getMessage());
    }

    @Test
    void aMessageNobodyReceivedIsALeftover() {
        RunResult r = WorldRunner.run(MAILBOX, world(2), LIMITS, rank -> {
            if (rank.rank() == 0) {
                rank.comm().send(new int[] {1, 2}, 1, 44);
            }
        });
        assertEquals(1, r.leftovers().size(), r.toString());
        assertEquals(new Leftover(1, 0, 44, 8), r.leftovers().getFirst());
        assertTrue(!r.ok());
    }
}
