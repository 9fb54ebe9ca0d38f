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

    @Test
    void communicators() throws Exception {
        runs("communicators", 3);
    }

    @Test
    void twoThreadsOfEachRankAtOnce() throws Exception {
        runs("threads", 2);
    }

    @Test
    void errors() throws Exception {
        runs("errors", 2);
    }
}
