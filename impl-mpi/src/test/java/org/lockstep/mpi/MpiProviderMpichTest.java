package org.lockstep.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The {@code mpi} provider on MPICH: the test programs under {@code mpirun.mpich} (Hydra). */
class MpiProviderMpichTest {
    private static final MpiJob.Launcher LAUNCHER = MpiJob.Launcher.MPICH;

    @BeforeAll
    static void launcherPresent() {
        MpiInstalled.require(LAUNCHER);
    }

    static void runs(String program, int ranks) throws Exception {
        runs(program, ranks, List.of());
    }

    static void runs(String program, int ranks, List<String> properties) throws Exception {
        List<String> jvmOptions = new java.util.ArrayList<>(List.of("-Dlockstep.provider=mpi"));
        jvmOptions.addAll(properties);
        MpiJob.Outcome outcome = MpiJob.run(LAUNCHER, ranks, List.of(), MpiJob.jvm(MpiPrograms.class, jvmOptions, program));
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
        runs("passive-target-while-blocked", 2);
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
    void truncatedReceivesWriteNothingPastTheirBuffers() throws Exception {
        runs("truncation", 2);
    }

    /** Receives posted directly (no probe first): MPICH's own truncation, and still nothing written past a buffer. */
    @Test
    void truncationAsMpiPostsReceives() throws Exception {
        runs("truncation-as-mpi", 2, List.of("-Dlockstep.mpi.truncation=mpi"));
        runs("truncation", 2, List.of("-Dlockstep.mpi.truncation=mpi"));
    }

    @Test
    void errors() throws Exception {
        runs("errors", 2);
    }
}
