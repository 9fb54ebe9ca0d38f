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
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Window;
import org.lockstep.api.Window.Assertion;
import org.lockstep.api.Window.LockType;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * One-sided communication beyond the synchronisation modes of {@link RmaRules}: flushes over the
 * targets a rank has locked, request-based accesses, assertions, origin and target
 * datatypes of their own. A passive target of these rules waits inside a window call (a fence),
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
                        MoreRmaRules::flushOfLockedTargets),
                messaging(RMA, 12, REQUIRED, "requestBasedAccessesCompleteAtTheOrigin",
                        "Under a lock, the requests of rget and rgetAccumulate complete with the target's elements in the buffers,"
                                + " those of rput and raccumulate with the origin buffer reusable (the target has the values after"
                                + " unlock); outside a lock, and in a fence epoch, they are RMA_SYNC.",
                        List.of(standard("§12.3.5 request-based RMA communication operations"), mpich("rma/reqops.c"),
                                mpich("rma/req_example.c")), MoreRmaRules::requestBased),
                messaging(RMA, 13, REQUIRED, "assertionsKeepTheirPromisesAndAreChecked",
                        "Fences with NOPRECEDE and NOSUCCEED around a ring of gets and puts, a NOCHECK lock and lockAll, and"
                                + " NOCHECK post and start complete as the plain calls do; an assertion a call does not take is"
                                + " ASSERT, NOPRECEDE after an access of the epoch and an access after NOSUCCEED are RMA_SYNC.",
                        List.of(standard("§12.5.5 assertions: MPI_MODE_NOCHECK, NOSTORE, NOPUT, NOPRECEDE, NOSUCCEED"),
                                mpich("rma/lockopts.c")), MoreRmaRules::assertions),
                messaging(RMA, 14, REQUIRED, "originAndTargetTypesLayOutTheirOwnSides",
                        "A row of 4 elements put, got and accumulated as one column of a 4 x 4 matrix at the target lands in"
                                + " the column, leaving the rest alone, and is read back as a row; origin and target types of"
                                + " different signatures are a TYPE error.",
                        List.of(standard("§12.3.1 MPI_Put: origin and target datatypes of one type signature"),
                                mpich("rma/strided_putget_indexed.c")), MoreRmaRules::originAndTargetTypes));
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

    private static void requestBased(MessagingRuleContext c) {
        c.runClean(2, "request-based accesses under a lock", rank -> {
            Communicator w = rank.comm();
            Window win = w.allocateWindow(24, 8, Info.EMPTY);
            win.segment().set(ValueLayout.JAVA_LONG, 0, 70L + w.rank());
            win.segment().set(ValueLayout.JAVA_LONG, 8, 0);
            win.segment().set(ValueLayout.JAVA_LONG, 16, 0);
            win.fence();
            if (w.rank() == 1) {
                expectError(ErrorClass.RMA_SYNC, "rput in a fence epoch", () -> win.rput(one(1), 1, Datatype.LONG, 0, 1));
                win.fence();
                expectError(ErrorClass.RMA_SYNC, "rget holding no lock", () -> win.rget(one(1), 1, Datatype.LONG, 0, 1));
                win.lock(LockType.SHARED, 0);
                long[] got = new long[2];
                Request get = win.rget(MemorySegment.ofArray(got), 1, Datatype.LONG, 0, 0);
                get.await();
                checkEquals(70L, got[0], "rank 1's rget buffer once its request completed");
                MemorySegment origin = one(9);
                Request put = win.rput(origin, 1, Datatype.LONG, 0, 1);
                put.await();
                origin.set(ValueLayout.JAVA_LONG, 0, -1);
                Request add = win.raccumulate(one(5), 1, Datatype.LONG, 0, 2, Op.SUM);
                Request fetch = win.rgetAccumulate(one(0), MemorySegment.ofArray(got).asSlice(8), 1, Datatype.LONG, 0, 0, Op.NO_OP);
                Request.waitAll(add, fetch);
                checkEquals(70L, got[1], "rank 1's rgetAccumulate result once its request completed");
                win.unlock(0);
            } else {
                win.fence();
            }
            win.fence();
            if (w.rank() == 0) {
                checkEquals(9L, win.segment().get(ValueLayout.JAVA_LONG, 8), "rank 0's element after rank 1's rput, its origin"
                        + " buffer overwritten once the request completed, and unlock");
                checkEquals(5L, win.segment().get(ValueLayout.JAVA_LONG, 16), "rank 0's element after rank 1's raccumulate and unlock");
            }
            win.free();
        });
    }

    private static void assertions(MessagingRuleContext c) {
        c.runClean(3, "synchronisation with assertions", rank -> {
            Communicator w = rank.comm();
            int n = w.size();
            int right = (w.rank() + 1) % n;
            int left = (w.rank() + n - 1) % n;
            Window win = w.allocateWindow(40, 8, Info.EMPTY);
            win.segment().fill((byte) 0);
            win.segment().set(ValueLayout.JAVA_LONG, 0, 100L + w.rank());
            win.fence(Assertion.NOPRECEDE);
            long[] got = new long[1];
            win.get(MemorySegment.ofArray(got), 1, Datatype.LONG, right, 0);
            win.put(one(w.rank()), 1, Datatype.LONG, right, 1);
            win.fence(Assertion.NOSUCCEED);
            checkEquals(100L + right, got[0], "rank " + w.rank() + "'s get of rank " + right + "'s store made before a NOPRECEDE fence");
            checkEquals((long) left, win.segment().get(ValueLayout.JAVA_LONG, 8), "rank " + w.rank()
                    + "'s element after fences with NOPRECEDE and NOSUCCEED (put by rank " + left + ")");
            expectError(ErrorClass.RMA_SYNC, "a put after a fence with NOSUCCEED", () -> win.put(one(1), 1, Datatype.LONG, right, 2));
            expectError(ErrorClass.ASSERT, "a fence with NOCHECK", () -> win.fence(Assertion.NOCHECK));
            expectError(ErrorClass.ASSERT, "a lock with NOPRECEDE", () -> win.lock(LockType.SHARED, right, Assertion.NOPRECEDE));
            expectError(ErrorClass.ASSERT, "a start with NOPUT", () -> win.start(w.group().incl(right), Assertion.NOPUT));
            win.fence();
            win.put(one(w.rank()), 1, Datatype.LONG, right, 2);
            expectError(ErrorClass.RMA_SYNC, "a fence with NOPRECEDE after a put of its epoch", () -> win.fence(Assertion.NOPRECEDE));
            win.fence(Assertion.NOSUCCEED, Assertion.NOSTORE, Assertion.NOPUT);
            checkEquals((long) left, win.segment().get(ValueLayout.JAVA_LONG, 16), "rank " + w.rank()
                    + "'s element after a fence with NOSUCCEED, NOSTORE and NOPUT (put by rank " + left + ")");
            if (w.rank() == 1) {
                win.lock(LockType.EXCLUSIVE, 0, Assertion.NOCHECK);
                win.put(one(9), 1, Datatype.LONG, 0, 3);
                win.unlock(0);
                w.send(new int[] {1}, 2, NOTE);
            } else if (w.rank() == 2) {
                w.recv(new int[1], 1, NOTE);
                long[] seen = new long[1];
                win.lockAll(Assertion.NOCHECK);
                win.get(MemorySegment.ofArray(seen), 1, Datatype.LONG, 0, 3);
                win.unlockAll();
                checkEquals(9L, seen[0], "rank 0's element read under lockAll(NOCHECK) after rank 1's lock(NOCHECK), put, unlock");
            }
            win.fence(Assertion.NOSUCCEED); // a passive target serves inside it (a NOPRECEDE fence need not wait)
            win.post(w.group().incl(left), Assertion.NOCHECK);
            w.barrier();
            win.start(w.group().incl(right), Assertion.NOCHECK);
            win.put(one(50L + w.rank()), 1, Datatype.LONG, right, 4);
            win.complete();
            win.waitExposure();
            checkEquals(50L + left, win.segment().get(ValueLayout.JAVA_LONG, 32), "rank " + w.rank()
                    + "'s element after post and start with NOCHECK (put by rank " + left + ")");
            win.free();
        });
    }

    private static void originAndTargetTypes(MessagingRuleContext c) {
        Datatype column = Datatype.vector(4, 1, 4, Datatype.LONG).commit();
        c.runClean(2, "a row as a column", rank -> {
            Communicator w = rank.comm();
            int me = w.rank();
            int peer = 1 - me;
            Window win = RmaRules.matrixOfMinusOnes(w);
            long[] row = {10L * me + 1, 10L * me + 2, 10L * me + 3, 10L * me + 4};
            win.fence();
            win.put(MemorySegment.ofArray(row), 4, Datatype.LONG, peer, 1, 1, column);
            expectError(ErrorClass.TYPE, "a put of 3 elements as a column of 4",
                    () -> win.put(MemorySegment.ofArray(row), 3, Datatype.LONG, peer, 1, 1, column));
            win.fence();
            for (int i = 0; i < 16; i++) {
                checkEquals(i % 4 == 1 ? 10L * peer + i / 4 + 1 : -1L, win.segment().getAtIndex(ValueLayout.JAVA_LONG, i), "element "
                        + i + " of rank " + me + "'s 4 x 4 part after rank " + peer + " put its row of 4 into column 1");
            }
            w.barrier(); // the next epoch's accesses may land at once
            long[] got = new long[4];
            win.get(MemorySegment.ofArray(got), 4, Datatype.LONG, peer, 1, 1, column);
            win.accumulate(MemorySegment.ofArray(new long[] {100, 100, 100, 100}), 4, Datatype.LONG, peer, 2, 1, column, Op.SUM);
            win.fence();
            for (int i = 0; i < 4; i++) {
                checkEquals(row[i], got[i], "element " + i + " of the row rank " + me + " got from rank " + peer + "'s column 1");
                checkEquals(99L, win.segment().getAtIndex(ValueLayout.JAVA_LONG, 4L * i + 2), "row " + i + " of rank " + me
                        + "'s column 2 after rank " + peer + " added a row of 100 into it");
            }
            win.free();
        });
    }
}
