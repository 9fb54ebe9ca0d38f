package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class LaunchEnvironmentTest {
    @Test
    void mpichHydraVariablesAreALauncher() {
        LaunchEnvironment launch = LaunchEnvironment.from(Map.of("PMI_RANK", "1", "PMI_SIZE", "4")).orElseThrow();
        assertEquals("mpich", launch.launcher());
        assertEquals(1, launch.rank());
        assertEquals(4, launch.size());
        // Ranks of one Hydra proxy agree on the job (they share the parent process).
        assertEquals(launch.jobKey(), LaunchEnvironment.from(Map.of("PMI_RANK", "0", "PMI_SIZE", "4")).orElseThrow().jobKey());
    }

    @Test
    void openMpiComesBeforeHydraAndLockstepBeforeBoth() {
        Map<String, String> both = Map.of("PMI_RANK", "1", "PMI_SIZE", "2", "OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2",
                "OMPI_MCA_ess_base_jobid", "77");
        assertEquals("openmpi", LaunchEnvironment.from(both).orElseThrow().launcher());
        Map<String, String> lockstep = Map.of("LOCKSTEP_RANK", "1", "LOCKSTEP_SIZE", "2", "LOCKSTEP_JOB_KEY", "ab",
                "PMI_RANK", "0", "PMI_SIZE", "2");
        assertEquals("lockstep", LaunchEnvironment.from(lockstep).orElseThrow().launcher());
    }

    @Test
    void aRankOutsideTheSizeIsARankError() {
        LockstepException e = assertThrows(LockstepException.class,
                () -> LaunchEnvironment.from(Map.of("PMI_RANK", "4", "PMI_SIZE", "4")));
        assertEquals(ErrorClass.RANK, e.errorClass());
    }

    @Test
    void hostCountComesFromTheLaunchersOwnVariables() {
        assertEquals(0, LaunchEnvironment.hostCount("slurm", Map.of()));
        assertEquals(3, LaunchEnvironment.hostCount("slurm", Map.of("SLURM_JOB_NUM_NODES", "3")));
        assertEquals(1, LaunchEnvironment.hostCount("slurm", Map.of("SLURM_STEP_NUM_NODES", "1", "SLURM_JOB_NUM_NODES", "3")));
        assertEquals(2, LaunchEnvironment.hostCount("openmpi", Map.of("OMPI_MCA_orte_num_nodes", "2", "SLURM_NNODES", "5")));
        assertEquals(0, LaunchEnvironment.hostCount("lockstep", Map.of("SLURM_NNODES", "5")));
        LockstepException e = assertThrows(LockstepException.class, () -> LaunchEnvironment.hostCount("slurm", Map.of("SLURM_NNODES", "x")));
        assertTrue(e.getMessage().contains("SLURM_NNODES"), e.getMessage());
    }

    @Test
    void differentOpenMpiJobsGetDifferentKeys() {
        Map<String, String> a = Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2", "OMPI_MCA_ess_base_jobid", "1");
        Map<String, String> b = Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2", "OMPI_MCA_ess_base_jobid", "2");
        assertNotEquals(LaunchEnvironment.from(a).orElseThrow().jobKey(), LaunchEnvironment.from(b).orElseThrow().jobKey());
    }
}
