package org.lockstep.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The {@code mpi} provider on Open MPI: the test programs under {@code mpirun.openmpi}. */
class MpiProviderOpenMpiTest {
    private static final MpiJob.Launcher LAUNCHER = MpiJob.Launcher.OPEN_MPI;

    @BeforeAll
    static void launcherPresent() {
        MpiInstalled.require(LAUNCHER);
    }

    static void runs(String program, int ranks) throws Exception {
        MpiJob.Outcome outcome = MpiJob.run(LAUNCHER, ranks, List.of(), MpiJob.jvm(MpiPrograms.class, List.of("-Dlockstep.provider=mpi"), program));
        assertFalse(outcome.timedOut(), () -> program + " timed out:\n" + outcome.output());
        assertEquals(0, outcome.exitCode(), () -> program + " failed:\n" + outcome.output());
        assertEquals(ranks, outcome.lines("OK " + program), () -> "every rank finishes " + program + ":\n" + outcome.output());
    }

    @Test
    void pointToPoint() throws Exception {
        runs("point-to-point", 2);
    }

    @Test
    void pointToPointAmongFour() throws Exception {
        runs("point-to-point", 4);
    }

    @Test
    void collectives() throws Exception {
        runs("collectives", 3);
    }

    /** Every non-blocking collective as the library's own, all in flight at once. */
    @Test
    void nonBlockingCollectives() throws Exception {
        runs("non-blocking-collectives", 3);
    }

    @Test
    void communicators() throws Exception {
        runs("communicators", 3);
    }

    @Test
    void intercommunicators() throws Exception {
        runs("intercommunicators", 4);
    }

    @Test
    void windows() throws Exception {
        runs("windows", 3);
    }

    /** A passive target blocked in a barrier, receive, wait or probe still grants its origin's lock (it hung there). */
    @Test
    void aPassiveTargetBlockedInANativeCallServesItsOrigin() throws Exception {
        runs("passive-target-while-blocked", 4);
    }

    @Test
    void topologies() throws Exception {
        runs("topologies", 4);
    }

    @Test
    void twoThreadsOfEachRankAtOnce() throws Exception {
        runs("threads", 2);
    }

    @Test
    void aWorldSizeThatDiffersFromTheLaunchersIsARankError() throws Exception {
        // Lockstep's own launcher variables claim 3 ranks; mpirun started 2.
        MpiJob.Outcome outcome = MpiJob.run(LAUNCHER, 2, List.of("-x", "LOCKSTEP_RANK", "-x", "LOCKSTEP_SIZE", "-x", "LOCKSTEP_JOB_KEY"),
                MpiJob.jvm(MpiPrograms.class, List.of("-Dlockstep.provider=mpi"), "point-to-point"),
                java.util.Map.of("LOCKSTEP_RANK", "0", "LOCKSTEP_SIZE", "3", "LOCKSTEP_JOB_KEY", "abc"));
        assertFalse(outcome.timedOut(), outcome::output);
        org.junit.jupiter.api.Assertions.assertNotEquals(0, outcome.exitCode(), outcome::output);
        org.junit.jupiter.api.Assertions.assertTrue(outcome.output().contains("MPI_ERR_RANK")
                && outcome.output().contains("world of 2 rank(s), but the lockstep launcher started 3"), outcome::output);
    }

    @Test
    void aJobStartedHalfInsideSlurmIsRefusedOnEveryRank() throws Exception {
        List<String> jvm = MpiJob.jvm(MpiPrograms.class, List.of("-Dlockstep.provider=mpi"), "point-to-point");
        List<String> command = new java.util.ArrayList<>(List.of(LAUNCHER.command));
        command.addAll(LAUNCHER.flags);
        command.addAll(List.of("-np", "1", "-x", "SLURM_JOB_ID=41"));
        command.addAll(jvm);
        command.addAll(List.of(":", "-np", "1"));
        command.addAll(jvm);
        MpiJob.Outcome outcome = MpiJob.start(command, java.util.Map.of());
        assertFalse(outcome.timedOut(), outcome::output);
        org.junit.jupiter.api.Assertions.assertNotEquals(0, outcome.exitCode(), outcome::output);
        org.junit.jupiter.api.Assertions.assertTrue(outcome.output().contains("not all started the same way")
                && outcome.output().contains("inside a Slurm allocation"), outcome::output);
    }

    @Test
    void truncatedReceivesWriteNothingPastTheirBuffers() throws Exception {
        runs("truncation", 2);
    }

    @Test
    void errors() throws Exception {
        runs("errors", 2);
    }
}
