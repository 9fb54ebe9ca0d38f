package org.lockstep.embsp;

import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;

/**
 * The EM-BSP simulator as a Lockstep provider, {@code embsp}: the job's ranks become virtual
 * processors whose contexts live on disk (seed 003, PEMS2). Options are the
 * {@code lockstep.embsp.*} properties of {@link EmBspOptions}.
 */
public final class EmBspProvider implements LockstepProvider {
    public static final String NAME = "embsp";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "EM-BSP simulation (PEMS2, seed 003): v virtual processors on k cores, contexts swapped to disk";
    }

    @Override
    public void runInThreads(JobOptions options, RankProgram program) {
        Simulation.run(options, program);
    }
}
