package org.lockstep.mpi;

import static org.lockstep.mpi.MpiPrograms.check;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Info;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Window;
import org.lockstep.api.Window.LockType;

/**
 * One-sided windows on the {@code mpi} provider: allocated windows are native {@code MPI_Win}s;
 * every synchronisation mode moves heap and native buffers, the accumulating calls with
 * {@code REPLACE} and {@code NO_OP} too; a shared window's neighbour part is loaded directly; a
 * window over the caller's native memory sees the puts. A passive target blocked in a native call
 * (barrier, receive, wait, probe) still grants its origin's lock and takes its puts.
 */
final class MpiWindowPrograms {
    private MpiWindowPrograms() {
    }

    static void windows(Communicator world) {
        int me = world.rank();
        int n = world.size();
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;
        try (Window win = world.allocateWindow(8L * (n + 2), 8, Info.EMPTY)) {
            check(win.getClass().getSimpleName().equals("NativeWindow"), "an allocated window is native: " + win.getClass());
            win.segment().fill((byte) 0);
            win.segment().setAtIndex(ValueLayout.JAVA_LONG, n, 1000 + me);
            win.fence();
            long[] got = new long[1];
            MemorySegment nativeGot = world.allocate(8);
            win.put(MemorySegment.ofArray(new long[] {100 + me}), 1, Datatype.LONG, right, me);
            win.get(MemorySegment.ofArray(got), 1, Datatype.LONG, right, n);
            win.get(nativeGot, 1, Datatype.LONG, left, n);
            win.fence();
            check(got[0] == 1000 + right, "a heap get under fence: " + got[0]);
            check(nativeGot.get(ValueLayout.JAVA_LONG, 0) == 1000 + left, "a native get under fence");
            check(win.segment().getAtIndex(ValueLayout.JAVA_LONG, left) == 100 + left, "a put under fence: "
                    + win.segment().getAtIndex(ValueLayout.JAVA_LONG, left));
            world.free(nativeGot);

            win.post(world.group().incl(left));
            win.start(world.group().incl(right));
            win.put(MemorySegment.ofArray(new long[] {7000 + me}), 1, Datatype.LONG, right, n + 1);
            win.complete();
            win.waitExposure();
            check(win.segment().getAtIndex(ValueLayout.JAVA_LONG, n + 1) == 7000 + left, "a put under post-start-complete-wait");

            world.barrier();
            win.lock(LockType.EXCLUSIVE, 0);
            win.accumulate(MemorySegment.ofArray(new long[] {1}), 1, Datatype.LONG, 0, n, Op.SUM);
            win.unlock(0);
            win.lockAll();
            long[] before = new long[1];
            win.fetchAndOp(MemorySegment.ofArray(new long[] {2}), MemorySegment.ofArray(before), Datatype.LONG, 0, n, Op.SUM);
            win.flushAll();
            check(before[0] >= 1000, "fetch-and-op fetched " + before[0]);
            long[] swapped = new long[1];
            win.compareAndSwap(MemorySegment.ofArray(new long[] {-1}), MemorySegment.ofArray(new long[] {-2}),
                    MemorySegment.ofArray(swapped), Datatype.LONG, 0, n);
            win.flush(0);
            check(swapped[0] >= 1000, "compare-and-swap that does not match returns the element: " + swapped[0]);
            win.unlockAll();
            world.barrier();
            win.lock(LockType.SHARED, 0);
            long[] total = new long[1];
            win.getAccumulate(null, MemorySegment.ofArray(total), 1, Datatype.LONG, 0, n, Op.NO_OP);
            win.unlock(0);
            check(total[0] == 1000 + 3L * n, "accumulates and fetch-and-ops of every rank: " + total[0]);
            world.barrier();
            win.fence();
            win.accumulate(MemorySegment.ofArray(new long[] {-5}), 1, Datatype.LONG, right, n, Op.REPLACE);
            win.fence();
            check(win.segment().getAtIndex(ValueLayout.JAVA_LONG, n) == -5, "an accumulate with REPLACE");
        }
        try (Window shared = world.allocateSharedWindow(8, 8, Info.EMPTY)) {
            shared.segment().set(ValueLayout.JAVA_LONG, 0, 40 + me);
            shared.fence();
            check(shared.sharedQuery(right).get(ValueLayout.JAVA_LONG, 0) == 40 + right, "a neighbour's part of a shared window");
            shared.fence();
        }
        MemorySegment mine = world.allocate(8);
        mine.set(ValueLayout.JAVA_LONG, 0, 0);
        try (Window created = world.createWindow(mine, 8, Info.EMPTY)) {
            created.fence();
            created.put(MemorySegment.ofArray(new long[] {60 + me}), 1, Datatype.LONG, right, 0);
            created.fence();
            check(mine.get(ValueLayout.JAVA_LONG, 0) == 60 + left, "a put into a window over the caller's memory");
        }
        world.free(mine);
    }

    /**
     * The first half of the ranks lock, put to and unlock their partner in the second half (on the
     * other pretend host under hybrid) while the partner sits in a native blocking call that ends
     * only after the unlock: a barrier, a receive, a wait and a probe. The window is over heap
     * memory, which the library cannot see, so it is the point-to-point window whose target is
     * served by a Java agent (the compat program {@code Windows} hung so at 4 ranks on Open MPI).
     */
    static void passiveTargetWhileBlocked(Communicator world) {
        int me = world.rank();
        int n = world.size();
        check(n % 2 == 0, "an even number of ranks");
        int half = n / 2;
        boolean origin = me < half;
        int partner = origin ? me + half : me - half;
        String[] waits = {"barrier", "receive", "wait", "probe"};
        long[] part = new long[waits.length];
        try (Window win = world.createWindow(MemorySegment.ofArray(part), 8, Info.EMPTY)) {
            check(!win.getClass().getSimpleName().equals("NativeWindow"), "a window over heap memory is the point-to-point window");
            for (int step = 0; step < waits.length; step++) {
                if (origin) {
                    world.recv(new int[1], partner, step); // the target is about to block
                    win.lock(LockType.EXCLUSIVE, partner);
                    win.put(MemorySegment.ofArray(new long[] {1000L * step + me}), 1, Datatype.LONG, partner, step);
                    win.unlock(partner);
                    if (!waits[step].equals("barrier")) {
                        world.send(new int[] {step}, partner, 100 + step);
                    }
                } else {
                    world.send(new int[] {step}, partner, step);
                }
                switch (waits[step]) {
                    case "barrier" -> world.barrier();
                    case "receive" -> {
                        if (!origin) {
                            world.recv(new int[1], partner, 100 + step);
                        }
                    }
                    case "wait" -> {
                        if (!origin) {
                            Request r = world.irecv(new int[1], partner, 100 + step);
                            r.await();
                        }
                    }
                    default -> {
                        if (!origin) {
                            world.probe(partner, 100 + step);
                            world.recv(new int[1], partner, 100 + step);
                        }
                    }
                }
                if (!origin) {
                    check(part[step] == 1000L * step + partner, "the put of the origin's unlock while this target was in a "
                            + waits[step] + ": " + part[step]);
                }
            }
            world.barrier();
        }
    }
}
