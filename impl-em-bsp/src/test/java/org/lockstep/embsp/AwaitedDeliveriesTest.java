package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Datatype;
import org.lockstep.embsp.io.IoCategory;

/**
 * A VP that gives its partition up inside an Alltoall(v) does not write the receive regions no
 * message has reached yet (the messages will overwrite them, on disk), and every message still
 * arrives whole: the swap-outs write the send buffers, not the receive buffers as well.
 */
class AwaitedDeliveriesTest {
    private static final int VPS = 8;
    private static final long BLOCK = 4096;
    private static final long MESSAGE = 4 * BLOCK;

    @Test
    void swapOutsInsideAnAlltoallDoNotWriteTheAwaitedReceiveRegions() {
        for (String io : new String[] {"sync", "async"}) {
            RunReport report = Simulation.run(TestJobs.job(VPS, 1, 512 << 10, BLOCK).with(EmBspOptions.IO, io), w -> {
                MemorySegment send = w.allocate(VPS * MESSAGE);
                MemorySegment recv = w.allocate(VPS * MESSAGE);
                long words = MESSAGE / 8;
                for (int to = 0; to < VPS; to++) {
                    for (long i = 0; i < words; i++) {
                        send.setAtIndex(ValueLayout.JAVA_LONG, to * words + i, w.rank() * 1_000_000L + to * 10_000L + i);
                    }
                }
                recv.fill((byte) 0x55);
                w.alltoall(send, words, Datatype.LONG, recv);
                for (int from = 0; from < VPS; from++) {
                    for (long i = 0; i < words; i++) {
                        assertEquals(from * 1_000_000L + w.rank() * 10_000L + i, recv.getAtIndex(ValueLayout.JAVA_LONG, from * words + i),
                                io + ": VP " + w.rank() + " word " + i + " from VP " + from);
                    }
                }
            });
            long out = report.total().bytes(IoCategory.SWAP_OUT);
            long buffer = VPS * MESSAGE;
            // each VP swaps out once in the call: its send buffer, and of its receive buffer at most what reached it in memory
            assertTrue(out >= VPS * buffer, io + ": the send buffers are written: " + out);
            assertTrue(out <= VPS * (buffer + 2 * MESSAGE), io + ": swapped out " + out + " bytes, receive buffers "
                    + VPS * buffer + " of them?");
        }
    }
}
