package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Datatype;
import org.lockstep.api.Lockstep;
import org.lockstep.api.Op;

/** A job of a project that depends on Lockstep through its BOM: a ring exchange and an allreduce. */
class RingTest {
    @Test
    void fourRanksPassTheirNumbersAroundAndAddThemUp() {
        int ranks = 4;
        AtomicLongArray received = new AtomicLongArray(ranks);
        AtomicLongArray sums = new AtomicLongArray(ranks);
        Lockstep.run(ranks, world -> {
            int next = (world.rank() + 1) % world.size();
            int previous = (world.rank() + world.size() - 1) % world.size();
            long[] out = {100 + world.rank()};
            long[] in = new long[1];
            world.sendrecv(MemorySegment.ofArray(out), 1, Datatype.LONG, next, 0,
                    MemorySegment.ofArray(in), 1, Datatype.LONG, previous, 0);
            received.set(world.rank(), in[0]);
            long[] sum = new long[1];
            world.allreduce(MemorySegment.ofArray(out), MemorySegment.ofArray(sum), 1, Datatype.LONG, Op.SUM);
            sums.set(world.rank(), sum[0]);
        });
        for (int r = 0; r < ranks; r++) {
            assertEquals(100 + (r + ranks - 1) % ranks, received.get(r), "rank " + r + " got its left neighbour's number");
            assertEquals(100 * ranks + ranks * (ranks - 1) / 2, sums.get(r), "rank " + r + "'s sum");
        }
    }
}
