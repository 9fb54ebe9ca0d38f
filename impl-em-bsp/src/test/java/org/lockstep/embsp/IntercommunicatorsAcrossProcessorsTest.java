package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.Op;

/**
 * An intercommunicator whose two groups each span both real processors (even and odd VPs, VPs 0-1
 * on processor 0, 2-3 on processor 1): its bridge is a group every VP derives alike, and its
 * messages and collectives cross the network.
 */
class IntercommunicatorsAcrossProcessorsTest {
    @Test
    void evenAndOddGroupsTalkAcrossTwoRealProcessors() {
        ConcurrentHashMap<Integer, String> outcomes = new ConcurrentHashMap<>();
        RealProcessorsTest.run(TestJobs.job(4, 1, 512 << 10, 4096), 2, w -> {
            boolean even = w.rank() % 2 == 0;
            Communicator half = w.split(w.rank() % 2, w.rank());
            Intercommunicator ic = half.createIntercommunicator(0, w, even ? 1 : 0, 7);
            int[] got = new int[1];
            ic.send(MemorySegment.ofArray(new int[] {w.rank()}), 1, Datatype.INT, ic.rank(), 1);
            ic.recv(MemorySegment.ofArray(got), 1, Datatype.INT, ic.rank(), 1);
            int[] value = {even ? -1 : 42};
            ic.bcast(MemorySegment.ofArray(value), 1, Datatype.INT, even ? 0 : ic.rank() == 0 ? Intercommunicator.ROOT : Communicator.PROC_NULL);
            int[] sum = new int[1];
            ic.allreduce(MemorySegment.ofArray(new int[] {w.rank()}), MemorySegment.ofArray(sum), 1, Datatype.INT, Op.SUM);
            Communicator merged = ic.merge(even);
            int mergedRank = merged.rank();
            merged.close();
            ic.close();
            half.close();
            outcomes.put(w.rank(), got[0] + " " + value[0] + " " + sum[0] + " " + mergedRank);
        });
        // from the remote rank of the same local rank; the odd group's bcast; the remote group's sum; odd group first after merge(even)
        assertEquals("1 42 4 2", outcomes.get(0));
        assertEquals("0 42 2 0", outcomes.get(1));
        assertEquals("3 42 4 3", outcomes.get(2));
        assertEquals("2 42 2 1", outcomes.get(3));
    }
}
