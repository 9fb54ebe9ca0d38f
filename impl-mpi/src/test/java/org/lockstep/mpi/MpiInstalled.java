package org.lockstep.mpi;

import org.junit.jupiter.api.Assumptions;

/**
 * Whether an MPI launcher is installed. CI installs Open MPI and MPICH ({@code .ci/run}), so there
 * a missing one fails the test; elsewhere the MPI tests are skipped with the reason.
 */
final class MpiInstalled {
    private MpiInstalled() {
    }

    static void require(MpiJob.Launcher launcher) {
        if (launcher.installed()) {
            return;
        }
        String why = launcher.command + " is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev mpich)";
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError(why + "; CI must install it");
        }
        Assumptions.abort(why);
    }
}
