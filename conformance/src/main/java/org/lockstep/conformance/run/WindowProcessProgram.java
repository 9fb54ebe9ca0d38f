package org.lockstep.conformance.run;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Info;
import org.lockstep.api.Op;
import org.lockstep.api.Window;

/**
 * The rank program of the kit's one-sided rule for separate processes: fence puts around a ring,
 * an exclusive-lock read-modify-write counter, accumulates, and loads and stores through a shared
 * window's neighbour part. Each rank prints {@code rank r windows ok} or what it found wrong.
 */
final class WindowProcessProgram {
    private static final int INCREMENTS = 10;

    private WindowProcessProgram() {
    }

    static void run(Communicator world) {
        String problem;
        try {
            problem = check(world);
        } catch (RuntimeException e) {
            problem = e.toString();
        }
        System.out.println("rank " + world.rank() + (problem == null ? " windows ok" : " windows FAILED: " + problem));
    }

    /** What this rank found wrong, or null. */
    private static String check(Communicator world) {
        int n = world.size();
        int me = world.rank();
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;
        Window win = world.allocateWindow(24, 8, Info.EMPTY);
        win.segment().fill((byte) 0);
        win.fence();
        win.put(MemorySegment.ofArray(new long[] {100 + me}), 1, Datatype.LONG, right, 0);
        win.accumulate(MemorySegment.ofArray(new long[] {1}), 1, Datatype.LONG, 0, 2, Op.SUM);
        win.fence();
        if (win.segment().get(ValueLayout.JAVA_LONG, 0) != 100 + left) {
            return "fence: element 0 is " + win.segment().get(ValueLayout.JAVA_LONG, 0) + ", rank " + left + " put " + (100 + left);
        }
        long[] value = new long[1];
        for (int i = 0; i < INCREMENTS; i++) {
            win.lock(Window.LockType.EXCLUSIVE, 0);
            win.get(MemorySegment.ofArray(value), 1, Datatype.LONG, 0, 1);
            win.flush(0);
            value[0]++;
            win.put(MemorySegment.ofArray(value), 1, Datatype.LONG, 0, 1);
            win.unlock(0);
        }
        win.fence();
        if (me == 0 && win.segment().get(ValueLayout.JAVA_LONG, 8) != (long) INCREMENTS * n) {
            return "lock: the counter is " + win.segment().get(ValueLayout.JAVA_LONG, 8) + ", not " + INCREMENTS * n;
        }
        if (me == 0 && win.segment().get(ValueLayout.JAVA_LONG, 16) != n) {
            return "accumulate: the sum is " + win.segment().get(ValueLayout.JAVA_LONG, 16) + ", not " + n;
        }
        win.free();
        Window shared = world.allocateSharedWindow(8, 8, Info.EMPTY);
        shared.sharedQuery(right).set(ValueLayout.JAVA_LONG, 0, 200 + me);
        shared.sync();
        shared.fence();
        long seen = shared.segment().get(ValueLayout.JAVA_LONG, 0);
        shared.fence();
        shared.free();
        return seen == 200 + left ? null : "sharedQuery: rank " + left + " stored " + (200 + left) + " into this part, it holds " + seen;
    }
}
