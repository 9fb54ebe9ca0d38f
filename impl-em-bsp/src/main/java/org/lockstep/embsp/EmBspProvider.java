package org.lockstep.embsp;

import java.nio.file.Path;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;

/**
 * The EM-BSP simulator as a Lockstep provider, {@code embsp}: the job's ranks become virtual
 * processors whose contexts live on disk (seed 003, PEMS2). Options are the
 * {@code lockstep.embsp.*} properties of {@link EmBspOptions}.
 *
 * <p>Started by a launcher ({@code lockstep run -n P}, {@code lockstep embsp --processors P},
 * {@code mpirun}), each process is one real processor: it simulates v/P of the v VPs and talks to
 * the others through the messaging provider named by {@value EmBspOptions#NETWORK} (the mailbox
 * transport by default), found by name like any provider — never by importing it.
 */
public final class EmBspProvider implements LockstepProvider {
    public static final String NAME = "embsp";
    /** Job property: in {@link #runInThreads}, the real processors to simulate the VPs on (threads of this JVM, for tests). */
    public static final String PROCESSORS = EmBspOptions.PREFIX + "processors";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "EM-BSP simulation (PEMS2, seed 003): v virtual processors on P real processors of k cores, contexts swapped to disk";
    }

    @Override
    public void runInThreads(JobOptions options, RankProgram program) {
        long processors = options.longProperty(PROCESSORS, 1);
        if (processors == 1) {
            Simulation.run(options, program);
            return;
        }
        if (processors < 1 || processors > options.ranks()) {
            throw new LockstepException(ErrorClass.ARG, PROCESSORS + " = " + processors + " must be between 1 and v = " + options.ranks());
        }
        JobOptions job = options.with(EmBspOptions.VPS, Integer.toString(options.ranks()));
        network(job).runInThreads(new JobOptions((int) processors, job.properties()),
                world -> Simulation.runProcessor(job, world, program));
    }

    @Override
    public void runAttached(JobOptions options, LaunchEnvironment launch, RankProgram program) {
        network(options).runAttached(options, launch, world -> Simulation.runProcessor(options, world, program));
    }

    /**
     * A launched job's device file is its network's (real processors over the mailbox transport
     * format it for the job): asked so that the launcher removes it after the job. The check is
     * the device's own job key, so asking the default network of a job on another network
     * answers false for any file but an empty one, which the launcher removes anyway.
     */
    @Override
    public boolean holdsJobDevice(Path devicePath, long jobKey) {
        return Lockstep.find(EmBspOptions.DEFAULT_NETWORK).map(network -> network.holdsJobDevice(devicePath, jobKey)).orElse(false);
    }

    /** The messaging provider the real processors talk through. */
    private static LockstepProvider network(JobOptions options) {
        String name = options.property(EmBspOptions.NETWORK).orElse(EmBspOptions.DEFAULT_NETWORK).trim();
        if (name.equals(NAME)) {
            throw new LockstepException(ErrorClass.ARG, EmBspOptions.NETWORK + " names " + NAME
                    + " itself: real processors need a messaging provider to talk through (such as mailbox)");
        }
        return Lockstep.find(name).orElseThrow(() -> new LockstepException(ErrorClass.NO_PROVIDER, EmBspOptions.NETWORK + " = " + name
                + ": no such messaging provider is installed for the real processors to talk through; installed: "
                + Lockstep.providers().keySet()));
    }
}
