package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.sim.CallRecord;

/**
 * Small Allgather(v) and Alltoall go through the call's message area: no VP's context is touched
 * for another's message (no delivery I/O), and no VP is swapped in beyond its one swap of the call
 * (no loan of its send buffer after a wait). Eager swaps, so every swap-in reads what the swap-out
 * before it wrote: a call's swap-in bytes equal its swap-out bytes exactly.
 */
class StagedCollectivesTest {
    private static final int VPS = 8;
    private static final long BLOCK = 4096;
    private static final long STATE = 16 * BLOCK;
    private static final int ROUNDS = 3;

    @Test
    void smallAllgatherAndAlltoallReadAndWriteNoContextButTheirOwnSwap() {
        JobOptions job = TestJobs.job(VPS, 2, STATE + (1 << 20), BLOCK).with(EmBspOptions.IO, "async");
        RunReport report = Simulation.run(job, StagedCollectivesTest::program);
        List<CallRecord> small = report.calls().stream().filter(c -> c.operation().startsWith("all")).toList();
        assertEquals(4 * ROUNDS, small.size(), "allgather, allgatherv, alltoall and alltoall in place per round");
        long swapped = 0;
        for (CallRecord c : small) {
            String what = CollectivesTest.describe(c);
            assertEquals(0, c.counted().deliveryBytes(), "no message went to or came from a context: " + what);
            assertEquals(c.counted().bytes(IoCategory.SWAP_OUT), c.counted().bytes(IoCategory.SWAP_IN),
                    "each swap-in only undoes a swap-out of the call: " + what);
            assertTrue(c.counted().bytes(IoCategory.SWAP_IN) <= VPS * STATE + VPS * 4 * BLOCK, "each VP swapped in once at most: " + what);
            assertTrue(c.withinBound(), "within its bound: " + what);
            swapped += c.counted().bytes(IoCategory.SWAP_IN);
        }
        assertTrue(swapped > 0, "VPs waited swapped out (else the test shows nothing): " + report.keyValueLine());
    }

    @Test
    void withoutTheMessageAreaTheSameCallsTouchOtherContexts() {
        JobOptions job = TestJobs.job(VPS, 2, STATE + (1 << 20), BLOCK).with(EmBspOptions.IO, "async")
                .with(EmBspOptions.STAGED_COLLECTIVE, "0");
        RunReport report = Simulation.run(job, StagedCollectivesTest::program);
        long delivery = 0;
        long extraSwapIns = 0;
        for (CallRecord c : report.calls()) {
            if (c.operation().startsWith("all")) {
                delivery += c.counted().deliveryBytes();
                extraSwapIns += c.counted().bytes(IoCategory.SWAP_IN) - c.counted().bytes(IoCategory.SWAP_OUT);
            }
        }
        // the direct paths pull from swapped-out senders (Allgather) and loan send buffers back after a wait (Alltoall)
        assertTrue(delivery > 0 && extraSwapIns > 0, "delivery " + delivery + " bytes, swap-ins beyond swap-outs " + extraSwapIns);
    }

    @Test
    void aNegativeAreaIsATypedError() {
        JobOptions job = TestJobs.job(VPS, 2, STATE + (1 << 20), BLOCK).with(EmBspOptions.STAGED_COLLECTIVE, "-1");
        LockstepException e = org.junit.jupiter.api.Assertions.assertThrows(LockstepException.class,
                () -> Simulation.run(job, w -> { }));
        assertEquals(ErrorClass.ARG, e.errorClass());
        assertTrue(e.getMessage().contains(EmBspOptions.STAGED_COLLECTIVE), e.getMessage());
    }

    /** A state the VPs swap, then rounds of small calls; every VP checks what it received. */
    private static void program(Communicator w) {
        int n = w.size();
        int rank = w.rank();
        MemorySegment state = w.allocate(STATE);
        state.fill((byte) rank);
        MemorySegment one = w.allocate(8);
        MemorySegment gathered = w.allocate(8L * n);
        MemorySegment varying = w.allocate(8L * n * (n + 1) / 2);
        MemorySegment sends = w.allocate(8L * n);
        MemorySegment receives = w.allocate(8L * n);
        long[] counts = new long[n];
        long[] displs = new long[n];
        for (int i = 0; i < n; i++) {
            counts[i] = i + 1;
            displs[i] = i == 0 ? 0 : displs[i - 1] + counts[i - 1];
        }
        w.barrier();
        for (int round = 0; round < ROUNDS; round++) {
            one.set(ValueLayout.JAVA_LONG, 0, value(round, rank, 0));
            w.allgather(one, 1, Datatype.LONG, gathered);
            MemorySegment mine = w.allocate(8L * counts[rank]);
            for (int k = 0; k < counts[rank]; k++) {
                mine.setAtIndex(ValueLayout.JAVA_LONG, k, value(round, rank, k));
            }
            w.allgatherv(mine, counts[rank], Datatype.LONG, varying, counts, displs);
            w.free(mine);
            for (int j = 0; j < n; j++) {
                sends.setAtIndex(ValueLayout.JAVA_LONG, j, value(round, rank, j));
            }
            w.alltoall(sends, 1, Datatype.LONG, receives);
            for (int i = 0; i < n; i++) {
                assertEquals(value(round, i, 0), gathered.getAtIndex(ValueLayout.JAVA_LONG, i), "allgather from " + i);
                for (int k = 0; k < counts[i]; k++) {
                    assertEquals(value(round, i, k), varying.getAtIndex(ValueLayout.JAVA_LONG, displs[i] + k), "allgatherv from " + i);
                }
                assertEquals(value(round, i, rank), receives.getAtIndex(ValueLayout.JAVA_LONG, i), "alltoall from " + i);
            }
            w.alltoall(Communicator.IN_PLACE, 1, Datatype.LONG, receives);
            for (int i = 0; i < n; i++) {
                // receives[i] was value(i, rank): sent back to i, so each gets its own messages back
                assertEquals(value(round, rank, i), receives.getAtIndex(ValueLayout.JAVA_LONG, i), "alltoall in place from " + i);
            }
        }
        for (long i = 0; i < STATE; i++) {
            if (state.get(ValueLayout.JAVA_BYTE, i) != (byte) rank) {
                throw new AssertionError("VP " + rank + " state byte " + i);
            }
        }
    }

    private static long value(int round, int rank, int k) {
        return round * 1_000_000L + rank * 1_000L + k;
    }
}
