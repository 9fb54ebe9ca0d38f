package org.lockstep.tools;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;

/**
 * The program {@code lockstep bench checkpoint} launches to time restarts: a ring exchange of 1 KiB
 * messages that checkpoints every {@code every} steps (rank r at its own offset). A restarted
 * incarnation prints, with {@link System#nanoTime()} (one clock for every process of the host), when
 * its first receive after the restart completed, and a first incarnation prints {@link #RUNNING} a
 * third of the way through (the bench kills then). Arguments: {@code steps every}.
 */
public final class RestartBenchProgram {
    /** Printed by each rank's first incarnation a third of the way through, followed by its rank. */
    static final String RUNNING = "bench-running rank=";

    private RestartBenchProgram() {
    }

    public static void main(String[] args) {
        int steps = Integer.parseInt(args[0]);
        int every = Integer.parseInt(args[1]);
        int ranks = LaunchEnvironment.current().map(LaunchEnvironment::size).orElse(4);
        Lockstep.run(JobOptions.ofRanks(ranks), world -> run(world, steps, every));
    }

    static void run(Communicator world, int steps, int every) {
        int n = world.size();
        int me = world.rank();
        MemorySegment state = MemorySegment.ofArray(new long[2]);
        Checkpoints cp = world.checkpoints();
        cp.register("bench-restart-state", state);
        cp.restore();
        boolean restarted = cp.restart().isPresent();
        MemorySegment out = MemorySegment.ofArray(new byte[CheckpointBenchCommand.MESSAGE_BYTES]);
        MemorySegment in = MemorySegment.ofArray(new byte[CheckpointBenchCommand.MESSAGE_BYTES]);
        long offset = (long) me * every / n;
        for (long i = state.get(ValueLayout.JAVA_LONG, 0); i < steps; i++) {
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
            world.sendrecv(out, out.byteSize(), Datatype.BYTE, (me + 1) % n, 1, in, in.byteSize(), Datatype.BYTE, (me + n - 1) % n, 1);
            if (restarted) {
                System.out.println("bench-restart rank=" + me + " incarnation=" + cp.restart().get().incarnation()
                        + " first-message-at=" + System.nanoTime());
                System.out.flush();
                restarted = false;
            }
            if (i == steps / 3 && !cp.restart().isPresent()) {
                // The bench kills when it reads this: mid-run, with checkpoints behind every rank.
                System.out.println(RUNNING + me);
                System.out.flush();
            }
            state.set(ValueLayout.JAVA_LONG, 0, i + 1);
            state.set(ValueLayout.JAVA_LONG, 8, state.get(ValueLayout.JAVA_LONG, 8) ^ in.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            if ((i + 1 + offset) % every == 0) {
                cp.checkpoint();
            }
        }
    }
}
