package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Keyval;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Op;

/**
 * One rank of {@link IntercommunicatorProcessesTest}: a separate JVM of a job of three, joined as
 * groups A = {0} and B = {1, 2} by an intercommunicator. Runs gatherv, allgatherv, alltoallv and
 * reduce_scatter(_block) across it and reads the predefined attributes; prints {@code checked=1}
 * and exits 0 when every result holds, 1 with the reason otherwise. Arguments: device path, rank,
 * job key (hex).
 */
public final class IntercommunicatorPeer {
    private IntercommunicatorPeer() {
    }

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[1]);
        ProcessWorld attached = ProcessWorld.attach(JobOptions.ofRanks(3),
                new LaunchEnvironment(rank, 3, args[0], Long.parseUnsignedLong(args[2], 16), "lockstep"));
        try {
            check(attached.communicator());
            System.out.println("checked=1");
            attached.close();
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace();
            attached.failed(t);
            System.exit(1);
        }
    }

    private static void check(Communicator w) {
        boolean inA = w.rank() == 0;
        Communicator half = w.split(inA ? 0 : 1, w.rank());
        Intercommunicator ic = half.createIntercommunicator(0, w, inA ? 1 : 0, 3);
        int me = ic.rank();
        int remote = ic.remoteSize();
        // gatherv at A's rank 0: B's rank j sends j + 1 longs, at backward displacements 2 and 0
        long[] mine = new long[me + 1];
        Arrays.fill(mine, 10L * w.rank());
        long[] gathered = new long[3];
        ic.gatherv(MemorySegment.ofArray(mine), me + 1, Datatype.LONG, MemorySegment.ofArray(gathered), new long[] {1, 2},
                new long[] {2, 0}, inA ? Intercommunicator.ROOT : 0);
        if (inA) {
            expect(Arrays.equals(gathered, new long[] {20, 20, 10}), "gatherv " + Arrays.toString(gathered));
        }
        // allgatherv: every rank sends its world rank once; blocks in remote rank order
        long[] all = new long[remote];
        long[] ones = new long[remote];
        long[] displs = new long[remote];
        for (int j = 0; j < remote; j++) {
            ones[j] = 1;
            displs[j] = j;
        }
        ic.allgatherv(MemorySegment.ofArray(new long[] {w.rank()}), 1, Datatype.LONG, MemorySegment.ofArray(all), ones, displs);
        expect(Arrays.equals(all, inA ? new long[] {1, 2} : new long[] {0}), "allgatherv " + Arrays.toString(all));
        // alltoallv: one long, 100 * world + j, to each remote rank j
        long[] out = new long[remote];
        for (int j = 0; j < remote; j++) {
            out[j] = 100L * w.rank() + j;
        }
        long[] in = new long[remote];
        ic.alltoallv(MemorySegment.ofArray(out), ones, displs, Datatype.LONG, MemorySegment.ofArray(in), ones, displs);
        for (int j = 0; j < remote; j++) {
            expect(in[j] == 100L * (inA ? j + 1 : 0) + me, "alltoallv block " + j + ": " + in[j]);
        }
        // reduce_scatter_block: 2 elements in all (A: 2 for its one rank, B: 1 each), (world + 1) * (k + 1)
        long[] vector = {w.rank() + 1L, 2L * (w.rank() + 1)};
        long[] block = new long[2];
        ic.reduceScatterBlock(MemorySegment.ofArray(vector), MemorySegment.ofArray(block), inA ? 2 : 1, Datatype.LONG, Op.SUM);
        // A sees B's sum of (world + 1): 2 + 3 = 5; B sees A's: 1
        long other = inA ? 5 : 1;
        for (int k = 0; k < (inA ? 2 : 1); k++) {
            expect(block[k] == other * ((inA ? 0 : me) + k + 1), "reduce_scatter_block element " + k + ": " + block[k]);
        }
        ic.close();
        half.close();
        expect(w.attribute(Keyval.TAG_UB).orElseThrow() >= 32767, "TAG_UB");
        expect(w.attribute(Keyval.UNIVERSE_SIZE).orElseThrow() == 3, "UNIVERSE_SIZE " + w.attribute(Keyval.UNIVERSE_SIZE));
    }

    private static void expect(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
