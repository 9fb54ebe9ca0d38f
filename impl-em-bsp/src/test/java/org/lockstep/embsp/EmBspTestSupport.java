package org.lockstep.embsp;

import org.lockstep.api.JobOptions;
import org.lockstep.api.RankProgram;

/** Test access to the simulator for tests outside this package (the applications). */
public final class EmBspTestSupport {
    private EmBspTestSupport() {
    }

    public static JobOptions job(int v, int k, long mu, long block) {
        return TestJobs.job(v, k, mu, block);
    }

    public static RunReport run(JobOptions job, RankProgram program) {
        return Simulation.run(job, program);
    }

    public static long roundUp(long x, long block) {
        return (x + block - 1) / block * block;
    }
}
