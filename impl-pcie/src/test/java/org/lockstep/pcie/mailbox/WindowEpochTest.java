package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Window;
import org.lockstep.api.Window.Assertion;
import org.lockstep.api.Window.LockType;

/**
 * Completion calls of one-sided windows beyond the epochs' open and close, on device windows and
 * on the point-to-point default: flushes over some locked targets, request-based accesses, assertions, origin and target types.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WindowEpochTest {
    private static Window window(Communicator world, long bytes, boolean device) {
        return device ? world.allocateWindow(bytes, 8, Info.EMPTY) : world.createWindow(Arena.ofAuto().allocate(bytes, 8), 8, Info.EMPTY);
    }

    private static MemorySegment one(long value) {
        return MemorySegment.ofArray(new long[] {value});
    }

    private static ErrorClass errorOf(Runnable call) {
        return assertThrows(LockstepException.class, call::run).errorClass();
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void flushAllAndFlushLocalAllCompleteTheLockedTargetsOnly(boolean device) {
        TestWorlds.run(3, world -> {
            Window win = window(world, 16, device);
            win.segment().set(ValueLayout.JAVA_LONG, 8, 30L + world.rank());
            win.fence();
            if (world.rank() == 1) {
                assertEquals(ErrorClass.RMA_SYNC, errorOf(win::flushAll));
                assertEquals(ErrorClass.RMA_SYNC, errorOf(win::flushLocalAll));
                long[] got = new long[2];
                win.lock(LockType.EXCLUSIVE, 0);
                win.lock(LockType.SHARED, 2);
                win.get(MemorySegment.ofArray(got), 1, Datatype.LONG, 0, 1);
                win.get(MemorySegment.ofArray(got).asSlice(8), 1, Datatype.LONG, 2, 1);
                win.flushLocalAll();
                assertEquals(30L, got[0]);
                assertEquals(32L, got[1]);
                win.put(one(5), 1, Datatype.LONG, 0, 0);
                win.put(one(6), 1, Datatype.LONG, 2, 0);
                win.flushAll();
                assertEquals(ErrorClass.RMA_SYNC, errorOf(() -> win.flushLocal(1)));
                win.unlock(0);
                win.unlock(2);
            }
            win.fence();
            assertEquals(world.rank() == 1 ? 0 : 5L + world.rank() / 2, win.segment().get(ValueLayout.JAVA_LONG, 0));
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void requestBasedAccessesCompleteAtTheOriginUnderALock(boolean device) {
        TestWorlds.run(2, world -> {
            Window win = window(world, 24, device);
            win.segment().set(ValueLayout.JAVA_LONG, 0, 40L + world.rank());
            win.fence();
            assertEquals(ErrorClass.RMA_SYNC, errorOf(() -> win.rput(one(1), 1, Datatype.LONG, 1 - world.rank(), 1)));
            win.fence();
            if (world.rank() == 1) {
                assertEquals(ErrorClass.RMA_SYNC, errorOf(() -> win.rget(one(1), 1, Datatype.LONG, 0, 1)));
                win.lock(LockType.SHARED, 0);
                long[] got = new long[3];
                Request get = win.rget(MemorySegment.ofArray(got), 1, Datatype.LONG, 0, 0);
                MemorySegment origin = one(9);
                Request put = win.rput(origin, 1, Datatype.LONG, 0, 1);
                Request add = win.raccumulate(one(5), 1, Datatype.LONG, 0, 2, Op.SUM);
                Request fetch = win.rgetAccumulate(one(0), MemorySegment.ofArray(got).asSlice(8), 1, Datatype.LONG, 0, 0, Op.NO_OP);
                Request.waitAll(get, put, add, fetch);
                origin.set(ValueLayout.JAVA_LONG, 0, -1); // reusable once its request is complete
                assertEquals(40L, got[0]);
                assertEquals(40L, got[1]);
                win.unlock(0);
            }
            win.fence();
            if (world.rank() == 0) {
                assertEquals(9L, win.segment().get(ValueLayout.JAVA_LONG, 8));
                assertEquals(5L, win.segment().get(ValueLayout.JAVA_LONG, 16));
            }
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void assertionsSkipWorkAndKeepTheirPromises(boolean device) {
        TestWorlds.run(3, world -> {
            int n = world.size();
            int right = (world.rank() + 1) % n;
            int left = (world.rank() + n - 1) % n;
            Window win = window(world, 40, device);
            win.segment().set(ValueLayout.JAVA_LONG, 0, 100L + world.rank());
            win.fence(Assertion.NOPRECEDE);
            long[] got = new long[1];
            win.get(MemorySegment.ofArray(got), 1, Datatype.LONG, right, 0);
            win.put(one(world.rank()), 1, Datatype.LONG, right, 1);
            win.fence(Assertion.NOSUCCEED);
            assertEquals(100L + right, got[0]);
            assertEquals(left, win.segment().get(ValueLayout.JAVA_LONG, 8));
            assertEquals(ErrorClass.RMA_SYNC, errorOf(() -> win.put(one(1), 1, Datatype.LONG, right, 2)));
            win.fence();
            win.put(one(world.rank()), 1, Datatype.LONG, right, 2);
            assertEquals(ErrorClass.RMA_SYNC, errorOf(() -> win.fence(Assertion.NOPRECEDE)));
            win.fence(Assertion.NOSUCCEED, Assertion.NOSTORE);
            assertEquals(left, win.segment().get(ValueLayout.JAVA_LONG, 16));
            assertEquals(ErrorClass.ASSERT, errorOf(() -> win.fence(Assertion.NOCHECK)));
            assertEquals(ErrorClass.ASSERT, errorOf(() -> win.lock(LockType.SHARED, 0, Assertion.NOPRECEDE)));
            assertEquals(ErrorClass.ASSERT, errorOf(() -> win.start(world.group().incl(right), Assertion.NOPUT)));
            assertEquals(ErrorClass.ASSERT, errorOf(() -> win.post(world.group().incl(left), Assertion.NOSUCCEED)));
            if (world.rank() == 1) {
                win.lock(LockType.EXCLUSIVE, 0, Assertion.NOCHECK);
                win.put(one(9), 1, Datatype.LONG, 0, 3);
                win.unlock(0);
                world.send(new int[] {1}, 2, 5);
            } else if (world.rank() == 2) {
                world.recv(new int[1], 1, 5);
                long[] seen = new long[1];
                win.lockAll(Assertion.NOCHECK);
                win.get(MemorySegment.ofArray(seen), 1, Datatype.LONG, 0, 3);
                win.unlockAll();
                assertEquals(9L, seen[0]);
            }
            win.fence(Assertion.NOPRECEDE, Assertion.NOSUCCEED);
            win.post(world.group().incl(left), Assertion.NOCHECK);
            world.barrier();
            win.start(world.group().incl(right), Assertion.NOCHECK);
            win.put(one(50L + world.rank()), 1, Datatype.LONG, right, 4);
            win.complete();
            win.waitExposure();
            assertEquals(50L + left, win.segment().get(ValueLayout.JAVA_LONG, 32));
            win.free();
        });
    }

    @ParameterizedTest(name = "device window {0}")
    @ValueSource(booleans = {true, false})
    void originAndTargetTypesOfOneSignatureLayOutEachSide(boolean device) {
        Datatype column = Datatype.vector(4, 1, 4, Datatype.LONG).commit();
        TestWorlds.run(2, world -> {
            int peer = 1 - world.rank();
            Window win = window(world, 16 * 8, device);
            win.fence();
            long[] row = {10L * world.rank() + 1, 10L * world.rank() + 2, 10L * world.rank() + 3, 10L * world.rank() + 4};
            win.put(MemorySegment.ofArray(row), 4, Datatype.LONG, peer, 1, 1, column);
            assertEquals(ErrorClass.TYPE, errorOf(() -> win.put(MemorySegment.ofArray(row), 3, Datatype.LONG, peer, 1, 1, column)));
            assertEquals(ErrorClass.TYPE, errorOf(() -> win.get(MemorySegment.ofArray(row), 4, Datatype.DOUBLE, peer, 1, 1, column)));
            win.fence();
            for (int i = 0; i < 4; i++) {
                assertEquals(10L * peer + i + 1, win.segment().getAtIndex(ValueLayout.JAVA_LONG, 4L * i + 1), "column 1, row " + i);
            }
            world.barrier();
            long[] got = new long[4];
            win.get(MemorySegment.ofArray(got), 4, Datatype.LONG, peer, 1, 1, column);
            win.accumulate(MemorySegment.ofArray(new long[] {100, 100, 100, 100}), 4, Datatype.LONG, peer, 1, 1, column, Op.SUM);
            win.fence();
            assertEquals(10L * world.rank() + 1, got[0]);
            assertEquals(10L * world.rank() + 4, got[3]);
            assertEquals(10L * peer + 104, win.segment().getAtIndex(ValueLayout.JAVA_LONG, 13));
            world.barrier(); // the peer's next accumulate lands at once on a device window
            long[] fetched = new long[16];
            win.getAccumulate(MemorySegment.ofArray(new long[] {1, 1, 1, 1}), 4, Datatype.LONG, MemorySegment.ofArray(fetched), 1, column,
                    peer, 1, 1, column, Op.SUM);
            win.fence();
            assertEquals(10L * world.rank() + 101, fetched[0]);
            assertEquals(10L * world.rank() + 104, fetched[12]);
            assertEquals(0L, fetched[1], "a gap of the result's column");
            assertEquals(10L * peer + 105, win.segment().getAtIndex(ValueLayout.JAVA_LONG, 13));
            win.free();
        });
    }
}
