package org.lockstep.embsptest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.Op;

/**
 * A program of one's own for {@code lockstep embsp -cp … org.lockstep.embsptest.UserProgram MODE}:
 * {@code sum} adds the ranks with allreduce and an alltoall and prints the result from rank 0;
 * {@code die} has the last VP end its process abruptly after the first collective (a real
 * processor dying mid-superstep), the others going on to the next.
 */
public final class UserProgram {
    private UserProgram() {
    }

    public static void main(String[] args) {
        String mode = args.length > 0 ? args[0] : "sum";
        Lockstep.run(JobOptions.ofRanks(4), world -> {
            MemorySegment x = world.allocate(8);
            MemorySegment y = world.allocate(8);
            x.set(ValueLayout.JAVA_LONG, 0, world.rank());
            world.allreduce(x, y, 1, Datatype.LONG, Op.SUM);
            long n = world.size();
            if (y.get(ValueLayout.JAVA_LONG, 0) != n * (n - 1) / 2) {
                throw new AssertionError("allreduce gave " + y.get(ValueLayout.JAVA_LONG, 0));
            }
            if (mode.equals("die") && world.rank() == world.size() - 1) {
                Runtime.getRuntime().halt(9);
            }
            MemorySegment out = world.allocate(8 * n);
            MemorySegment in = world.allocate(8 * n);
            for (int j = 0; j < n; j++) {
                out.setAtIndex(ValueLayout.JAVA_LONG, j, world.rank() * 1000L + j);
            }
            world.alltoall(out, 1, Datatype.LONG, in);
            for (int i = 0; i < n; i++) {
                if (in.getAtIndex(ValueLayout.JAVA_LONG, i) != i * 1000L + world.rank()) {
                    throw new AssertionError("alltoall block " + i + " at rank " + world.rank());
                }
            }
            world.barrier();
            if (world.rank() == 0) {
                System.out.println("user program: " + n + " ranks agree, sum " + y.get(ValueLayout.JAVA_LONG, 0));
            }
            closeAll(world, x, y, out, in);
        });
    }

    private static void closeAll(Communicator world, MemorySegment... segments) {
        for (MemorySegment s : segments) {
            world.free(s);
        }
    }
}
