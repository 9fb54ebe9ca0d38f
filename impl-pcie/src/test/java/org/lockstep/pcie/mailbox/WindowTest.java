package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Window;

/**
 * One-sided windows on the mailbox transport (threads): every synchronisation mode and the typed
 * errors, on device windows (allocateWindow) and on the point-to-point default (createWindow over
 * process memory).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WindowTest {
    /** A window of {@code bytes} zeroed bytes: in device memory, or over process memory (the point-to-point default). */
    private static Window window(Communicator world, long bytes, boolean device) {
        return device ? world.allocateWindow(bytes, 8, Info.EMPTY) : world.createWindow(Arena.ofAuto().allocate(bytes, 8), 8, Info.EMPTY);
    }

    @Test
    void sharedPartsAreLoadedAndStoredDirectly() {
        TestWorlds.run(3, world -> {
            Window win = world.allocateSharedWindow(8, 8, Info.EMPTY);
            win.segment().set(ValueLayout.JAVA_LONG, 0, 10L + world.rank());
            win.fence();
            int right = (world.rank() + 1) % world.size();
            assertEquals(10L + right, win.sharedQuery(right).get(ValueLayout.JAVA_LONG, 0));
            win.fence();
            win.sharedQuery(right).set(ValueLayout.JAVA_LONG, 0, 20L + world.rank());
            win.fence();
            assertEquals(20L + (world.rank() + world.size() - 1) % world.size(), win.segment().get(ValueLayout.JAVA_LONG, 0));
            win.free();
            Window plain = world.allocateWindow(8, 8, Info.EMPTY);
            assertEquals(ErrorClass.WIN, assertThrows(LockstepException.class, () -> plain.sharedQuery(0)).errorClass());
            plain.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void fencePutsAndGetsReachEveryRank(boolean device) {
        TestWorlds.run(3, world -> {
            int n = world.size();
            Window win = window(world, 8L * n, device);
            win.fence();
            for (int t = 0; t < n; t++) {
                win.put(MemorySegment.ofArray(new long[] {100L * world.rank() + t}), 1, Datatype.LONG, t, world.rank());
            }
            win.fence();
            for (int s = 0; s < n; s++) {
                assertEquals(100L * s + world.rank(), win.segment().getAtIndex(ValueLayout.JAVA_LONG, s));
            }
            long[] got = new long[n];
            win.get(MemorySegment.ofArray(got), n, Datatype.LONG, (world.rank() + 1) % n, 0);
            win.fence();
            for (int s = 0; s < n; s++) {
                assertEquals(100L * s + (world.rank() + 1) % n, got[s]);
            }
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void accumulatesFromEveryRankAddUpAndFetchAndOpHandsOutDistinctTickets(boolean device) {
        TestWorlds.run(4, world -> {
            Window win = window(world, 16, device);
            win.fence();
            for (int i = 0; i < 10; i++) {
                win.accumulate(MemorySegment.ofArray(new long[] {1}), 1, Datatype.LONG, 0, 0, Op.SUM);
            }
            win.fence();
            if (world.rank() == 0) {
                assertEquals(40, win.segment().get(ValueLayout.JAVA_LONG, 0));
            }
            long[] ticket = new long[1];
            win.lock(Window.LockType.SHARED, 0);
            win.fetchAndOp(MemorySegment.ofArray(new long[] {1}), MemorySegment.ofArray(ticket), Datatype.LONG, 0, 1, Op.SUM);
            win.unlock(0);
            long[] all = new long[world.size()];
            world.allgather(MemorySegment.ofArray(ticket), 1, Datatype.LONG, MemorySegment.ofArray(all));
            java.util.Arrays.sort(all);
            assertArrayEquals(new long[] {0, 1, 2, 3}, all);
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void anExclusiveLockKeepsAReadModifyWriteWhole(boolean device) {
        TestWorlds.run(3, world -> {
            Window win = window(world, 8, device);
            world.barrier();
            for (int i = 0; i < 20; i++) {
                long[] v = new long[1];
                win.lock(Window.LockType.EXCLUSIVE, 0);
                win.get(MemorySegment.ofArray(v), 1, Datatype.LONG, 0, 0);
                win.flush(0);
                v[0]++;
                win.put(MemorySegment.ofArray(v), 1, Datatype.LONG, 0, 0);
                win.unlock(0);
            }
            world.barrier();
            if (world.rank() == 0) {
                assertEquals(60, win.segment().get(ValueLayout.JAVA_LONG, 0));
            }
            win.free();
        });
    }

    /**
     * A device window's passive target does nothing: its accesses are copies and its locks device words,
     * with no message. Rank 1 waits outside the library (on a latch) while rank 0 locks it, puts, gets,
     * accumulates and unlocks; only then is rank 1 let go. The point-to-point default would keep rank
     * 0's first lock waiting for rank 1 to serve it, and the latch would time out.
     */
    @Test
    void aDeviceWindowsPassiveTargetNeedsNothingFromItsRank() {
        CountDownLatch done = new CountDownLatch(1);
        TestWorlds.run(2, world -> {
            Window win = window(world, 16, true);
            win.fence();
            if (world.rank() == 1) {
                try {
                    assertTrue(done.await(30, TimeUnit.SECONDS), "rank 0's passive-target epochs on rank 1 did not end");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                assertEquals(42L, win.segment().get(ValueLayout.JAVA_LONG, 0));
                assertEquals(7L, win.segment().get(ValueLayout.JAVA_LONG, 8));
            } else {
                long[] got = new long[2];
                win.lock(Window.LockType.EXCLUSIVE, 1);
                win.put(MemorySegment.ofArray(new long[] {42}), 1, Datatype.LONG, 1, 0);
                win.unlock(1);
                win.lock(Window.LockType.SHARED, 1);
                win.accumulate(MemorySegment.ofArray(new long[] {7}), 1, Datatype.LONG, 1, 1, Op.SUM);
                win.get(MemorySegment.ofArray(got), 2, Datatype.LONG, 1, 0);
                win.unlock(1);
                assertArrayEquals(new long[] {42, 7}, got);
                done.countDown();
            }
            win.fence();
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void postStartCompleteWaitBetweenNeighbours(boolean device) {
        TestWorlds.run(3, world -> {
            int n = world.size();
            int right = (world.rank() + 1) % n;
            int left = (world.rank() + n - 1) % n;
            Window win = window(world, 8, device);
            win.post(world.group().incl(left));
            win.start(world.group().incl(right));
            win.put(MemorySegment.ofArray(new long[] {world.rank() + 7}), 1, Datatype.LONG, right, 0);
            win.complete();
            win.waitExposure();
            assertEquals(left + 7, win.segment().get(ValueLayout.JAVA_LONG, 0));
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void compareAndSwapElectsOneRank(boolean device) {
        TestWorlds.run(3, world -> {
            Window win = window(world, 8, device);
            win.segment().set(ValueLayout.JAVA_LONG, 0, -1);
            win.fence();
            long[] old = new long[1];
            win.compareAndSwap(MemorySegment.ofArray(new long[] {world.rank()}), MemorySegment.ofArray(new long[] {-1}),
                    MemorySegment.ofArray(old), Datatype.LONG, 0, 0);
            win.fence();
            long[] winners = new long[1];
            world.allreduce(MemorySegment.ofArray(new long[] {old[0] == -1 ? 1 : 0}), MemorySegment.ofArray(winners), 1, Datatype.LONG, Op.SUM);
            assertEquals(1, winners[0]);
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void badAccessesAreTypedErrors(boolean device) {
        TestWorlds.run(2, world -> {
            Window win = window(world, 16, device);
            MemorySegment one = MemorySegment.ofArray(new long[1]);
            assertEquals(ErrorClass.RMA_SYNC, assertThrows(LockstepException.class, () -> win.put(one, 1, Datatype.LONG, 1, 0)).errorClass());
            win.fence();
            assertEquals(ErrorClass.RMA_RANGE, assertThrows(LockstepException.class, () -> win.put(one, 1, Datatype.LONG, 1, 2)).errorClass());
            assertEquals(ErrorClass.RMA_RANGE, assertThrows(LockstepException.class, () -> win.get(one, 1, Datatype.LONG, 1, -1)).errorClass());
            assertEquals(ErrorClass.RANK, assertThrows(LockstepException.class, () -> win.lock(Window.LockType.SHARED, 2)).errorClass());
            assertEquals(ErrorClass.RMA_SYNC, assertThrows(LockstepException.class, win::complete).errorClass());
            assertEquals(ErrorClass.RMA_SYNC, assertThrows(LockstepException.class, () -> win.unlock(1)).errorClass());
            assertEquals(ErrorClass.WIN, assertThrows(LockstepException.class, () -> win.sharedQuery(0)).errorClass());
            win.fence();
            win.free();
            assertEquals(ErrorClass.WIN, assertThrows(LockstepException.class, win::fence).errorClass());
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void aFenceMetByAPostFailsInsteadOfHanging(boolean device) {
        TestWorlds.run(2, world -> {
            Window win = window(world, 8, device);
            if (world.rank() == 0) {
                assertEquals(ErrorClass.RMA_SYNC, assertThrows(LockstepException.class, win::fence).errorClass());
            } else {
                win.post(world.group().incl(0));
                assertEquals(ErrorClass.RMA_SYNC, assertThrows(LockstepException.class, win::waitExposure).errorClass());
            }
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void aGetAfterAFenceSeesEveryPutOfTheEpochBefore(boolean device) {
        // Rank 2's puts outnumber the mailbox's slots, so most wait in its queue while rank 0, past the
        // fence, already asks rank 1 for the value: rank 1 must answer only once its own fence is over.
        int puts = 200;
        TestWorlds.run(3, world -> {
            Window win = window(world, 8, device);
            win.fence();
            if (world.rank() == 2) {
                for (long v = 1; v <= puts; v++) {
                    win.put(MemorySegment.ofArray(new long[] {v}), 1, Datatype.LONG, 1, 0);
                }
            }
            win.fence();
            long[] got = new long[1];
            if (world.rank() == 0) {
                win.get(MemorySegment.ofArray(got), 1, Datatype.LONG, 1, 0);
            }
            win.fence();
            if (world.rank() == 0) {
                assertEquals(puts, got[0]);
            }
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void aStartWhoseTargetDiedFailsInsteadOfWaiting(boolean device) {
        try (MailboxThreadWorld threads = MailboxThreadWorld.open(TestWorlds.options(2))) {
            Communicator origin = threads.communicator(0);
            Communicator target = threads.communicator(1);
            java.util.concurrent.CompletableFuture<Window> targetWindow =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> window(target, 8, device), WindowTest::onRankOneThread);
            Window win = window(origin, 8, device);
            targetWindow.join();
            threads.rankFailed(1, new IllegalStateException("rank 1 killed by the test"));
            LockstepException e = assertThrows(LockstepException.class, () -> win.start(origin.group().incl(1)));
            assertEquals(ErrorClass.PROC_FAILED, e.errorClass());
        }
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void aFenceMetByAStartAndThenAFreeFailsInsteadOfHanging(boolean device) {
        TestWorlds.run(2, world -> {
            Window win = window(world, 8, device);
            if (world.rank() == 0) {
                assertEquals(ErrorClass.RMA_SYNC, assertThrows(LockstepException.class, win::fence).errorClass());
            } else {
                assertEquals(ErrorClass.RMA_SYNC, assertThrows(LockstepException.class, () -> win.start(world.group().incl(0))).errorClass());
            }
            win.free();
        });
    }

    /** A device lock word names its holders: a holder that has gone, and would never let go, fails the wait. */
    @ParameterizedTest(name = "the gone rank held a {0} lock")
    @EnumSource(Window.LockType.class)
    void aLockWhoseHolderDiedFailsInsteadOfWaiting(Window.LockType heldByTheGoneRank) {
        try (MailboxThreadWorld threads = MailboxThreadWorld.open(TestWorlds.options(2))) {
            Communicator survivor = threads.communicator(0);
            java.util.concurrent.CompletableFuture<Window> goneWindow =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> window(threads.communicator(1), 8, true), WindowTest::onRankOneThread);
            Window win = window(survivor, 8, true);
            goneWindow.join().lock(heldByTheGoneRank, 0);
            threads.rankFailed(1, new IllegalStateException("rank 1 killed by the test"));
            LockstepException e = assertThrows(LockstepException.class, () -> win.lock(Window.LockType.EXCLUSIVE, 0));
            assertEquals(ErrorClass.PROC_FAILED, e.errorClass());
            if (heldByTheGoneRank == Window.LockType.EXCLUSIVE) {
                assertEquals(ErrorClass.PROC_FAILED, assertThrows(LockstepException.class,
                        () -> win.lock(Window.LockType.SHARED, 0)).errorClass());
            } else {
                win.lock(Window.LockType.SHARED, 0); // a shared lock is still shared with the gone holder
                win.unlock(0);
            }
        }
    }

    /**
     * The point-to-point default: rank 1 takes a lock on rank 0's part (granted while rank 0 waits in
     * a receive, whose wait serves its window), tells rank 0, and fails; rank 0's own lock request
     * queued behind it is denied with PROC_FAILED naming rank 1 instead of waiting for ever.
     */
    @ParameterizedTest(name = "the gone rank held a {0} lock")
    @EnumSource(Window.LockType.class)
    void aPointToPointLockWhoseHolderDiedIsDeniedInsteadOfWaiting(Window.LockType heldByTheGoneRank) {
        java.util.concurrent.atomic.AtomicReference<LockstepException> denied = new java.util.concurrent.atomic.AtomicReference<>();
        IllegalStateException killed = new IllegalStateException("rank 1 killed by the test");
        LockstepException job = assertThrows(LockstepException.class, () -> TestWorlds.run(2, world -> {
            Window win = window(world, 8, false);
            if (world.rank() == 1) {
                win.lock(heldByTheGoneRank, 0);
                world.send(new byte[1], 0, 7);
                throw killed;
            }
            world.recv(new byte[1], 1, 7);
            Window.LockType conflicting = heldByTheGoneRank == Window.LockType.SHARED ? Window.LockType.EXCLUSIVE : Window.LockType.SHARED;
            denied.set(assertThrows(LockstepException.class, () -> win.lock(conflicting, 0)));
        }));
        assertEquals(killed, job.getCause(), "the job reports rank 1's own failure");
        assertEquals(ErrorClass.PROC_FAILED, denied.get().errorClass(), denied.get().getMessage());
        assertEquals(1, ((org.lockstep.api.ProcessFailedException) denied.get()).failedRank());
    }

    /**
     * A column of a 4 x 4 matrix of longs (a vector type) moves piece by piece: the put lands in the
     * target's column and leaves the other columns alone, the get brings a column back into the
     * origin's column, an accumulate adds into each element of the column.
     */
    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void aVectorTypeMovesItsPiecesAndLeavesTheGapsAlone(boolean device) {
        Datatype column = Datatype.vector(4, 1, 4, Datatype.LONG).commit();
        TestWorlds.run(2, world -> {
            Window win = window(world, 16 * Long.BYTES, device);
            for (int i = 0; i < 16; i++) {
                win.segment().setAtIndex(ValueLayout.JAVA_LONG, i, -1);
            }
            long[] matrix = new long[16];
            for (int i = 0; i < 16; i++) {
                matrix[i] = 100L * world.rank() + i;
            }
            int peer = 1 - world.rank();
            win.fence();
            win.put(MemorySegment.ofArray(matrix), 1, column, peer, 1); // this rank's column 0 into the peer's column 1
            win.fence();
            for (int i = 0; i < 16; i++) {
                long expected = i % 4 == 1 ? 100L * peer + (i - 1) : -1;
                assertEquals(expected, win.segment().getAtIndex(ValueLayout.JAVA_LONG, i), "element " + i);
            }
            world.barrier(); // the peer's accesses of the next epoch must not race these local reads
            long[] fetched = new long[16];
            java.util.Arrays.fill(fetched, 7);
            win.get(MemorySegment.ofArray(fetched), 1, column, peer, 2); // the peer's column 2 (still -1) into column 0
            long[] ones = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
            win.accumulate(MemorySegment.ofArray(ones), 1, column, peer, 1, Op.SUM);
            win.fence();
            for (int i = 0; i < 16; i++) {
                assertEquals(i % 4 == 0 ? -1 : 7, fetched[i], "fetched element " + i);
                long expected = i % 4 == 1 ? 100L * peer + i : -1; // column 1 after the sum: the put's value + 1
                assertEquals(expected, win.segment().getAtIndex(ValueLayout.JAVA_LONG, i), "element " + i + " after the accumulate");
            }
            win.free();
        });
    }

    /**
     * Rank 1's half of a collective window creation runs on a thread of its own: on the common pool
     * (one worker on two cores) it waited behind whatever else held that worker, and rank 0's half
     * with it (CI of 86dd753: 60 s in the creation).
     */
    private static void onRankOneThread(Runnable task) {
        Thread.ofPlatform().name("rank 1").daemon().start(task);
    }
}
