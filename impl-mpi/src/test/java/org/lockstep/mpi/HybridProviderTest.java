package org.lockstep.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code hybrid} provider on one machine with pretend hosts: 4 ranks as 2 hosts of 2
 * ({@code lockstep.mpi.hostOf=2}), Open MPI told to use TCP only so that traffic between the
 * pretend hosts crosses the network stack, the mailbox transport within each. The same programs
 * as the {@code mpi} provider's tests; each host's device file is gone after the job.
 */
class HybridProviderTest {
    private static final MpiJob.Launcher LAUNCHER = MpiJob.Launcher.OPEN_MPI;

    @BeforeAll
    static void launcherPresent() {
        MpiInstalled.require(LAUNCHER);
    }

    private static void runs(String program, int ranks, int perHost) throws Exception {
        runs(LAUNCHER, List.of("--mca", "btl", "self,tcp", "-x", "LOCKSTEP_JOB_KEY"), program, ranks, perHost);
    }

    private static void runs(MpiJob.Launcher launcher, List<String> flags, String program, int ranks, int perHost) throws Exception {
        String key = Long.toHexString(new SecureRandom().nextLong() & Long.MAX_VALUE);
        MpiJob.Outcome outcome = MpiJob.run(launcher, ranks, flags,
                MpiJob.jvm(MpiPrograms.class, List.of("-Dlockstep.provider=hybrid", "-Dlockstep.mpi.hostOf=" + perHost), program),
                Map.of("LOCKSTEP_JOB_KEY", key));
        assertFalse(outcome.timedOut(), () -> program + " timed out:\n" + outcome.output());
        assertEquals(0, outcome.exitCode(), () -> program + " failed:\n" + outcome.output());
        assertEquals(ranks, outcome.lines("OK " + program), () -> "every rank finishes " + program + ":\n" + outcome.output());
        for (int host = 0; host * perHost < ranks; host++) {
            Path device = Path.of("/dev/shm/lockstep-" + key + "-h" + host);
            assertFalse(Files.exists(device), "host " + host + "'s device outlived the job: " + device);
        }
    }

    @Test
    void pointToPointAcrossTwoPretendHosts() throws Exception {
        runs("point-to-point", 4, 2);
    }

    @Test
    void collectivesAcrossTwoPretendHosts() throws Exception {
        runs("collectives", 4, 2);
    }

    /** Every non-blocking collective as MPI's own over the whole group, all in flight at once. */
    @Test
    void nonBlockingCollectivesAcrossTwoPretendHosts() throws Exception {
        runs("non-blocking-collectives", 4, 2);
    }

    @Test
    void aRankWaitingOnTheDeviceKeepsMpiMoving() throws Exception {
        runs("cross-progress", 4, 2);
    }

    @Test
    void communicatorsAcrossUnevenPretendHosts() throws Exception {
        runs("communicators", 3, 2);
    }

    @Test
    void intercommunicatorsWhoseGroupsSpanPretendHosts() throws Exception {
        runs("intercommunicators", 4, 2); // evens and odds: each group has a rank on each host
    }

    /** Origins on one pretend host, their targets on the other, blocked in MPI (a two-level barrier's leaders, receives). */
    @Test
    void aPassiveTargetBlockedInANativeCallServesItsOriginAcrossPretendHosts() throws Exception {
        runs("passive-target-while-blocked", 4, 2);
    }

    @Test
    void wildcardReceivesTakeTheirMessagesFirstAcrossPretendHosts() throws Exception {
        runs("wildcards-across-hosts", 4, 2);
    }

    /** MPICH keeps nothing of a truncated posted receive: the provider's receives from another host must still give length and first bytes. */
    @Test
    void wildcardsAndTruncationAcrossPretendHostsOnMpich() throws Exception {
        MpiInstalled.require(MpiJob.Launcher.MPICH);
        runs(MpiJob.Launcher.MPICH, List.of(), "wildcards-across-hosts", 4, 2);
    }
}
