package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.RankProgram;
import org.lockstep.embsp.io.IoCategory;

/**
 * A VP that gives its partition up inside an Alltoall(v) does not write the receive regions no
 * message has reached yet (the messages will overwrite them, on disk), and every message still
 * arrives whole: the swap-outs write the send buffers, not the receive buffers as well. On one real
 * processor and on two (messages from the other arrive in frames through the network agent).
 */
class AwaitedDeliveriesTest {
    private static final int VPS = 8;
    private static final long BLOCK = 4096;
    private static final long MESSAGE = 4 * BLOCK;

    @ParameterizedTest(name = "P={0} {1}")
    @CsvSource({"1, sync", "1, async", "2, async"})
    void swapOutsInsideAnAlltoallDoNotWriteTheAwaitedReceiveRegions(int processors, String io) {
        RankProgram program = w -> {
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
        };
        // direct delivery, the path whose swap-outs could write awaited regions (not the small calls' message area)
        JobOptions job = TestJobs.job(VPS, 1, 512 << 10, BLOCK).with(EmBspOptions.IO, io).with(EmBspOptions.STAGED_COLLECTIVE, "0");
        RunReport report = processors == 1 ? Simulation.run(job, program) : RealProcessorsTest.run(job, processors, program);
        long out = report.total().bytes(IoCategory.SWAP_OUT);
        long buffer = VPS * MESSAGE;
        // each VP swaps out once in the call: its send buffer, and of its receive buffer at most what reached it in memory
        assertTrue(out >= VPS * buffer, io + ": the send buffers are written: " + out);
        assertTrue(out <= VPS * (buffer + 2 * MESSAGE), io + ": swapped out " + out + " bytes, receive buffers "
                + VPS * buffer + " of them?");
    }
}
