package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** {@code lockstep run --engine mpi}: which launcher, its command line, and whole jobs under Open MPI and MPICH. */
@Timeout(240)
class MpiEngineTest {
    private static final Function<String, Optional<Path>> NOTHING = name -> Optional.empty();

    private static Function<String, Optional<Path>> only(String... names) {
        return name -> List.of(names).contains(name) ? Optional.of(Path.of("/usr/bin", name)) : Optional.empty();
    }

    @Test
    void noLauncherIsATypedErrorThatSaysWhatToInstall() {
        LockstepException e = assertThrows(LockstepException.class, () -> MpiEngine.find(Optional.empty(), Map.of(), NOTHING));
        assertEquals(ErrorClass.NO_PROVIDER, e.errorClass());
        assertTrue(e.getMessage().contains("mpirun") && e.getMessage().contains("--engine local"), e.getMessage());
    }

    @Test
    void srunInsideAnAllocationMpirunOutside() {
        MpiEngine.Launcher inAllocation = MpiEngine.find(Optional.empty(), Map.of("SLURM_JOB_ID", "42"), only("srun", "mpirun.openmpi"));
        assertEquals(MpiEngine.Kind.SLURM, inAllocation.kind());
        MpiEngine.Launcher outside = MpiEngine.find(Optional.empty(), Map.of(), only("srun", "mpirun.mpich"));
        assertEquals(MpiEngine.Kind.MPICH, outside.kind());
        assertEquals(MpiEngine.Kind.OPEN_MPI, MpiEngine.find(Optional.empty(), Map.of(), only("mpirun.openmpi", "mpirun.mpich")).kind());
    }

    @Test
    void startedAsAnSrunTaskItRefusesToStartRanksItself() {
        LockstepException e = assertThrows(LockstepException.class, () -> MpiEngine.find(Optional.empty(),
                Map.of("SLURM_JOB_ID", "42", "SLURM_STEP_ID", "0", "SLURM_PROCID", "3"), only("srun")));
        assertEquals(ErrorClass.ARG, e.errorClass());
        assertTrue(e.getMessage().contains("SLURM_PROCID=3"), e.getMessage());
    }

    @Test
    void eachLauncherGetsTheRankCountHostsAndEnvironmentInItsOwnWords() {
        Map<String, String> env = MpiEngine.rankEnvironment(Map.of("lockstep.x", "1"));
        assertTrue(env.get("LOCKSTEP_PROPERTIES").contains("lockstep.provider=mpi"), env.toString());
        List<String> rank = List.of("java", "Main");
        List<String> openMpi = MpiEngine.command(new MpiEngine.Launcher(MpiEngine.Kind.OPEN_MPI, "mpirun.openmpi"), 4,
                Optional.of(Path.of("hosts")), true, env, rank);
        assertEquals(List.of("mpirun.openmpi", "-np", "4", "--tag-output", "--hostfile", "hosts", "--allow-run-as-root",
                "-x", "LOCKSTEP_PROPERTIES", "java", "Main"), openMpi);
        List<String> mpich = MpiEngine.command(new MpiEngine.Launcher(MpiEngine.Kind.MPICH, "mpirun.mpich"), 2,
                Optional.empty(), false, env, rank);
        assertEquals(List.of("mpirun.mpich", "-np", "2", "-prepend-rank", "-genv", "LOCKSTEP_PROPERTIES",
                env.get("LOCKSTEP_PROPERTIES"), "java", "Main"), mpich);
        assertThrows(LockstepException.class, () -> MpiEngine.command(new MpiEngine.Launcher(MpiEngine.Kind.SLURM, "srun"), 2,
                Optional.of(Path.of("hosts")), false, env, rank));
    }

    @Test
    void aJobRunsUnderOpenMpisMpirun() {
        runsUnder("mpirun.openmpi");
    }

    @Test
    void aJobRunsUnderMpichsMpirun() {
        runsUnder("mpirun.mpich");
    }

    @Test
    void engineOptionsAreRefusedWithTheLocalEngine() {
        CommandLineTest.Run r = CommandLineTest.run("run", "-n", "2", "--hostfile", "hosts", "Main");
        assertEquals(2, r.exitCode(), r.err());
        assertTrue(r.err().contains("--engine mpi"), r.err());
    }

    /** PEMS2 on two real processors that talk through native MPI (seed 003's P processors over MPI), started by mpirun. */
    @Test
    void anEmBspJobSpansTwoProcessorsThatTalkThroughNativeMpi() {
        Assumptions.assumeTrue(MpiEngine.onPath("mpirun.openmpi").isPresent() || "true".equals(System.getenv("CI")),
                "mpirun.openmpi is not installed");
        CommandLineTest.Run r = CommandLineTest.run("run", "--engine", "mpi", "--mpirun", "mpirun.openmpi", "-n", "2",
                "--provider", "embsp", "-o", "lockstep.embsp.network=mpi", "-o", "lockstep.embsp.vps=8",
                "--jvm-option", "-XX:TieredStopAtLevel=1", "--", "sort", "--keys", "20000");
        assertEquals(0, r.exitCode(), r.err() + r.out());
        assertTrue(r.out().contains("ranks=8") && r.out().contains("check=ok"), r.out());
    }

    private static void runsUnder(String mpirun) {
        Assumptions.assumeTrue(MpiEngine.onPath(mpirun).isPresent() || "true".equals(System.getenv("CI")), mpirun + " is not installed");
        CommandLineTest.Run r = CommandLineTest.run("run", "--engine", "mpi", "--mpirun", mpirun, "-n", "2",
                "--jvm-option", "-Xmx64m", "--jvm-option", "-XX:TieredStopAtLevel=1",
                "-cp", Path.of("target", "test-classes").toAbsolutePath().toString(),
                "org.lockstep.launchtest.LaunchedPrograms", "point-to-point");
        assertEquals(0, r.exitCode(), r.err() + r.out());
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(r.out().contains("point-to-point OK on rank " + rank + " of 2"), r.out());
        }
    }
}
