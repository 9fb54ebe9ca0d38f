package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.RMA;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.Window;
import org.lockstep.api.Window.LockType;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * One-sided communication beyond the synchronisation modes of {@link RmaRules}: flushes over the
 * targets a rank has locked. A passive target of these rules waits inside a window call (a fence),
 * where every provider makes progress.
 */
final class MoreRmaRules {
    /** Tag of the rules' point-to-point notes beside the window. */
    private static final int NOTE = 42;

    private MoreRmaRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(RMA, 11, REQUIRED, "flushAllCompletesTheLockedTargets",
                        "Holding a lock on one rank only, flushLocalAll fills a get's buffer and flushAll puts a put in the target's"
                                + " part (a third rank reads it), leaving the ranks not locked alone; either without any lock is"
                                + " RMA_SYNC.",
                        List.of(standard("§12.5.4 MPI_Win_flush_all, MPI_Win_flush_local_all"), mpich("rma/flush.c")),
                        MoreRmaRules::flushOfLockedTargets));
    }

    private static MemorySegment one(long value) {
        return MemorySegment.ofArray(new long[] {value});
    }

    private static void flushOfLockedTargets(MessagingRuleContext c) {
        c.runClean(3, "lock of rank 0 only, then flushLocalAll and flushAll", rank -> {
            Communicator w = rank.comm();
            Window win = w.allocateWindow(16, 8, Info.EMPTY);
            win.segment().set(ValueLayout.JAVA_LONG, 0, 0);
            win.segment().set(ValueLayout.JAVA_LONG, 8, 50L + w.rank());
            win.fence();
            switch (w.rank()) {
                case 1 -> {
                    expectError(ErrorClass.RMA_SYNC, "flushAll holding no lock", win::flushAll);
                    expectError(ErrorClass.RMA_SYNC, "flushLocalAll holding no lock", win::flushLocalAll);
                    long[] got = new long[1];
                    win.lock(LockType.SHARED, 0);
                    win.get(MemorySegment.ofArray(got), 1, Datatype.LONG, 0, 1);
                    win.put(one(7), 1, Datatype.LONG, 0, 0);
                    win.flushLocalAll();
                    checkEquals(50L, got[0], "rank 1's get of rank 0's element after flushLocalAll (lock on rank 0 only)");
                    win.flushAll();
                    w.send(new int[] {1}, 2, NOTE);
                    w.recv(new int[1], 2, NOTE);
                    win.unlock(0);
                }
                case 2 -> {
                    long[] seen = new long[1];
                    w.recv(new int[1], 1, NOTE);
                    win.lock(LockType.SHARED, 0);
                    win.get(MemorySegment.ofArray(seen), 1, Datatype.LONG, 0, 0);
                    win.unlock(0);
                    w.send(new int[] {1}, 1, NOTE);
                    checkEquals(7L, seen[0], "rank 0's element read by rank 2 after rank 1's flushAll (lock on rank 0 only)");
                }
                default -> {
                    // the target: waits inside the window (the fence), where every provider serves
                }
            }
            win.fence();
            win.free();
        });
    }
}
