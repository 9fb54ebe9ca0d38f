package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.sim.CallRecord;

/**
 * A lazy swap-in reads nothing of a context that the superstep after it does not touch, and a
 * swap-out writes back only the pages written since; no write is lost and nothing stale is read:
 * each VP keeps a large state across supersteps that touch none of it, changes one long of it,
 * receives messages, and checks all of it at the end.
 */
class LazySwapInTest {
    private static final int VPS = 8;
    private static final int CORES = 2;
    private static final long BLOCK = 4096;
    private static final long STATE = 4L << 20;
    private static final int QUIET_SUPERSTEPS = 6;
    private static final long CHANGED_LONG = 123_457;

    @Test
    void untouchedContextsAreNeitherReadNorWrittenBackAndNothingIsLost() {
        RunReport eager = run("false");
        RunReport lazy = run("true");
        long eagerIn = eager.total().bytes(IoCategory.SWAP_IN);
        long lazyIn = lazy.total().bytes(IoCategory.SWAP_IN);
        long lazyOut = lazy.total().bytes(IoCategory.SWAP_OUT);
        // eager: the whole state in at every superstep's swap-in (of all but the k VPs that keep their partitions)
        assertTrue(eagerIn >= (VPS - CORES) * QUIET_SUPERSTEPS * STATE, "eager swap-ins read " + eagerIn);
        // lazy: nothing in the quiet supersteps; around the messages, the changed long and the final check (the kernel reads around a fault)
        assertTrue(lazyIn < eagerIn / 2, "lazy swap-ins read " + lazyIn + " bytes, eager ones " + eagerIn);
        assertTrue(lazyIn >= (VPS - CORES) * STATE, "the final check's pages were read from the disk and counted: " + lazyIn);
        // the state once, then the page changed and the small buffers' pages
        assertTrue(lazyOut <= VPS * (STATE + 8 * BLOCK), "lazy swap-outs wrote " + lazyOut + " bytes");
    }

    @Test
    void callRowsCountTheReadsOfTheSwapInsMadeInThemAfterTheyClosed() {
        RunReport lazy = run("true");
        long inCalls = 0;
        for (CallRecord c : lazy.calls()) {
            inCalls += c.counted().bytes(IoCategory.SWAP_IN);
        }
        // every swap-in with something allocated happens in a collective call; its faults read after the call
        assertEquals(lazy.total().bytes(IoCategory.SWAP_IN), inCalls, "swap-in bytes of the calls' rows against the run's");
    }

    @Test
    void memoryFreedAndAllocatedAgainIsNotReadFromDisk() {
        RunReport lazy = Simulation.run(job("true"), w -> {
            MemorySegment old = w.allocate(STATE);
            old.fill((byte) 1);
            w.barrier();
            w.free(old);
            MemorySegment fresh = w.allocate(STATE);
            assertEquals(old.address(), fresh.address(), "first fit gives the freed place again");
            fresh.fill((byte) 2);
            assertEquals(2, fresh.get(ValueLayout.JAVA_BYTE, STATE - 1));
            w.free(fresh);
            w.barrier();
        });
        // a store into a page still mapped from the file would read the dead page first: STATE per swapped-in VP
        assertTrue(lazy.total().bytes(IoCategory.SWAP_IN) < STATE / 4, "read " + lazy.total().bytes(IoCategory.SWAP_IN));
    }

    @Test
    void whatTheVpsBeforeReadAfterASwapInIsReadAhead() {
        long chunk = 1L << 20;
        int pagesRead = 16;
        RunReport lazy = Simulation.run(job("true"), w -> {
            MemorySegment state = w.allocate(STATE);
            state.fill((byte) 3);
            w.barrier();
            // 16 scattered pages of the first MiB: the ones swapped in later read that MiB ahead, not the rest
            for (int i = 0; i < pagesRead; i++) {
                assertEquals(3, state.get(ValueLayout.JAVA_BYTE, i * (chunk / pagesRead)));
            }
            w.barrier();
        });
        long read = lazy.total().bytes(IoCategory.SWAP_IN);
        assertTrue(read >= 3 * chunk, "the first MiB was read ahead for the later VPs: " + read);
        assertTrue(read <= VPS * (chunk + 2 * pagesRead * BLOCK), "nothing beyond the first MiB was read ahead: " + read);
    }

    @Test
    void whatACollectiveReadsAheadOnItsOwnHintIsNotReadAheadAgainForTheVpsAfter() {
        long buffer = STATE / 2;
        RunReport lazy = Simulation.run(job("true"), w -> {
            int n = w.size();
            long each = buffer / 8 / n;
            MemorySegment send = w.allocate(buffer);
            for (long i = 0; i < buffer / 8; i++) {
                send.setAtIndex(ValueLayout.JAVA_LONG, i, w.rank() * 10_000_000L + i);
            }
            w.barrier();
            MemorySegment recv = w.allocate(buffer); // fresh memory, as the sort's: no delivery into it reads the disk
            w.alltoall(send, (int) each, Datatype.LONG, recv);
            for (int r = 0; r < n; r++) {
                for (long i = 0; i < each; i++) {
                    assertEquals(r * 10_000_000L + w.rank() * each + i, recv.getAtIndex(ValueLayout.JAVA_LONG, r * each + i),
                            "from rank " + r + ", long " + i);
                }
            }
        });
        long afterBarrier = 0;
        for (CallRecord c : lazy.calls()) {
            if (c.operation().equals("barrier")) {
                afterBarrier += c.counted().bytes(IoCategory.SWAP_IN);
            }
        }
        // what the barrier's swap-ins read: the messages the alltoall sends before its wait (on its own hint), about
        // half of each send buffer; the rest leaves after the wait from a loan. Read ahead whole, as the VPs before read it: 0.9
        assertTrue(afterBarrier < VPS * buffer * 3 / 4, "the swap-ins after the barrier read " + afterBarrier + " bytes");
        assertTrue(afterBarrier > 0, "the send buffers were read from disk and counted");
    }

    /** Every VP asserts its whole state and its messages itself: a run that returns got every byte right. */
    private static JobOptions job(String lazySwapIn) {
        return TestJobs.job(VPS, CORES, STATE + (1 << 20), BLOCK).with(EmBspOptions.IO, "async")
                .with(EmBspOptions.DIRECT, "true").with(EmBspOptions.LAZY_SWAP_IN, lazySwapIn);
    }

    private static RunReport run(String lazySwapIn) {
        return Simulation.run(job(lazySwapIn), w -> {
            MemorySegment state = w.allocate(STATE);
            MemorySegment gathered = w.allocate(8L * w.size());
            long longs = STATE / 8;
            for (long i = 0; i < longs; i++) {
                state.setAtIndex(ValueLayout.JAVA_LONG, i, w.rank() * 10_000_000L + i);
            }
            exchange(w, gathered, 1);
            for (int step = 0; step < QUIET_SUPERSTEPS; step++) {
                w.barrier();
            }
            state.setAtIndex(ValueLayout.JAVA_LONG, CHANGED_LONG, -w.rank() - 1L);
            w.barrier();
            exchange(w, gathered, 2);
            for (long i = 0; i < longs; i++) {
                long expected = i == CHANGED_LONG ? -w.rank() - 1L : w.rank() * 10_000_000L + i;
                assertEquals(expected, state.getAtIndex(ValueLayout.JAVA_LONG, i), "VP " + w.rank() + " long " + i);
            }
        });
    }

    /** An Allgather of one long per VP, into contexts swapped in and out, checked. */
    private static void exchange(org.lockstep.api.Communicator w, MemorySegment gathered, int round) {
        MemorySegment mine = w.allocate(8);
        mine.set(ValueLayout.JAVA_LONG, 0, round * 100L + w.rank());
        w.allgather(mine, 1, Datatype.LONG, gathered);
        w.free(mine);
        for (int r = 0; r < w.size(); r++) {
            assertEquals(round * 100L + r, gathered.getAtIndex(ValueLayout.JAVA_LONG, r), "round " + round + ": value of rank " + r);
        }
    }
}
