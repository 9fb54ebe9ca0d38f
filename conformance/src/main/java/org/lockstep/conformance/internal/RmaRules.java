package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.RMA;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.Op;
import org.lockstep.api.Window;
import org.lockstep.api.Window.LockType;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.run.ProcessJob;

/**
 * One-sided communication (MPI 4.1 chapter 12): each synchronisation mode completes what it
 * promises at origin and target, locks exclude as their type says, accumulates and
 * compare-and-swap are atomic, shared windows are loaded and stored directly, and bad calls are
 * typed errors rather than hangs. A passive target of these rules waits inside a window call
 * (a fence), where every provider makes progress.
 */
final class RmaRules {
    /** Tag of the rules' point-to-point notes beside the window. */
    private static final int NOTE = 41;
    /** How long a rank holding an exclusive lock watches for another rank getting in (bounded; a healthy run waits it out). */
    private static final long EXCLUSION_WATCH_NANOS = 300_000_000L;
    /** How long three rank processes may take to start and run the window program on a loaded machine. */
    private static final Duration PROCESS_RUN = Duration.ofSeconds(120);

    private RmaRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(RMA, 1, REQUIRED, "fenceCompletesEveryAccess",
                        "Puts, gets and accumulates between two fences are complete at every origin and target when the closing"
                                + " fence returns: each rank's part holds what the others put and accumulated, each get buffer what"
                                + " the target held.",
                        List.of(standard("§12.5.1 MPI_Win_fence"), mpich("rma/test1.c"), mpich("rma/accfence1.c")), RmaRules::fence),
                messaging(RMA, 2, REQUIRED, "postStartCompleteWaitCompleteTheEpoch",
                        "In two rounds of post-start-complete-wait around a ring, the target's wait returns once its origin's"
                                + " puts of that round are in its part.",
                        List.of(standard("§12.5.2 MPI_Win_post, MPI_Win_start, MPI_Win_complete, MPI_Win_wait"), mpich("rma/test2.c")),
                        RmaRules::postStartCompleteWait),
                messaging(RMA, 3, REQUIRED, "exclusiveLockExcludes",
                        "While a rank holds an exclusive lock on a target, no other rank's lock on it is granted; the next holder"
                                + " reads what the first one wrote before its unlock.",
                        List.of(standard("§12.5.3 MPI_Win_lock, MPI_LOCK_EXCLUSIVE"), mpich("rma/lockcontention.c")),
                        RmaRules::exclusiveLock),
                messaging(RMA, 4, REQUIRED, "flushAndUnlockCompleteAtTheTarget",
                        "A put followed by flush (under lock or lockAll, with flushAll) is in the target's part when flush returns,"
                                + " seen by a third rank's get; unlock completes it as well.",
                        List.of(standard("§12.5.4 MPI_Win_flush, MPI_Win_flush_all, MPI_Win_lock_all"), mpich("rma/flush.c")),
                        RmaRules::flush),
                messaging(RMA, 5, REQUIRED, "accumulatesAreAtomic",
                        "Concurrent accumulates (SUM), fetch-and-ops and get-accumulates under lockAll from every rank, each kind"
                                + " on one element, add up exactly, and the values fetched from each element are distinct tickets.",
                        List.of(standard("§12.7.1 atomicity of accumulate functions"), mpich("rma/fetch_and_op.c"),
                                mpich("rma/accfence2.c"), mpich("rma/atomic_rmw_gacc.c")), RmaRules::accumulateAtomicity),
                messaging(RMA, 6, REQUIRED, "compareAndSwapIsAtomic",
                        "Every rank increments one element by compareAndSwap (v for v + 1, v the value it last saw): each value is"
                                + " replaced by exactly one successful swap, and the element ends at the number of them.",
                        List.of(standard("§12.3.4 MPI_Compare_and_swap"), mpich("rma/compare_and_swap.c")), RmaRules::compareAndSwap),
                Definitions.optional(RMA, 7, Capability.SHARED_WINDOWS, "sharedWindowsAreLoadedAndStoredDirectly",
                        "allocateSharedWindow gives every rank its neighbours' parts through sharedQuery: a store there is the"
                                + " neighbour's after a fence, and the neighbour's store is read there.",
                        List.of(standard("§12.2.3 MPI_Win_allocate_shared, MPI_Win_shared_query"), mpich("rma/win_shared.c")),
                        RmaRules::sharedQuery),
                messaging(RMA, 8, REQUIRED, "badCallsAreTypedErrors",
                        "An access outside the target's part is RMA_RANGE; outside an epoch, an unmatched complete, wait or unlock,"
                                + " a fence met by a post are RMA_SYNC; a lock on a rank outside the group is RANK; a freed window is"
                                + " WIN; none of them hangs.",
                        List.of(standard("§12.8 error handling: MPI_ERR_RMA_RANGE, MPI_ERR_RMA_SYNC, MPI_ERR_WIN")),
                        RmaRules::badCalls),
                Definitions.optional(RMA, 9, Capability.SEPARATE_PROCESSES, "windowsWorkAcrossProcesses",
                        "Three ranks that are separate processes fence puts around a ring, count under an exclusive lock,"
                                + " accumulate, and load and store a shared window's neighbour part, each seeing what the others did.",
                        List.of(standard("§12 one-sided communications"), mpich("rma/win_shared.c")), RmaRules::acrossProcesses),
                messaging(RMA, 10, REQUIRED, "derivedTypesMoveTheirPieces",
                        "A put, get and accumulate of a vector type (a matrix column) move the type's pieces to the same places at"
                                + " the target as in the origin's buffer, and leave the bytes between them alone on both sides.",
                        List.of(standard("§12.3 MPI_Put, MPI_Get, MPI_Accumulate with derived datatypes"), mpich("rma/strided_acc_onelock.c"),
                                mpich("rma/strided_get_indexed.c")), RmaRules::derivedTypes));
    }

    private static long[] longs(Window win, int count) {
        long[] out = new long[count];
        MemorySegment.copy(win.segment(), ValueLayout.JAVA_LONG, 0, out, 0, count);
        return out;
    }

    private static MemorySegment one(long value) {
        return MemorySegment.ofArray(new long[] {value});
    }

    private static void fence(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "fence epochs", rank -> {
                Communicator w = rank.comm();
                int me = w.rank();
                Window win = w.allocateWindow(8L * (n + 1), 8, Info.EMPTY);
                win.segment().fill((byte) 0);
                win.segment().set(ValueLayout.JAVA_LONG, 8L * n, 1000L + me);
                win.fence();
                long[] got = new long[n];
                for (int t = 0; t < n; t++) {
                    win.put(one(100L * me + t), 1, Datatype.LONG, t, me);
                    win.get(MemorySegment.ofArray(got).asSlice(8L * t, 8), 1, Datatype.LONG, t, n);
                }
                win.fence();
                for (int t = 0; t < n; t++) {
                    checkEquals(1000L + t, got[t], "rank " + me + "'s get of rank " + t + "'s last element after the fence");
                    win.accumulate(one(t + 1), 1, Datatype.LONG, t, n, Op.SUM);
                }
                long[] held = longs(win, n);
                for (int s = 0; s < n; s++) {
                    checkEquals(100L * s + me, held[s], "element " + s + " of rank " + me + "'s part after the fence (put by rank " + s + ")");
                }
                win.fence();
                checkEquals(1000L + me + (long) n * (me + 1), win.segment().get(ValueLayout.JAVA_LONG, 8L * n),
                        "rank " + me + "'s accumulated element after the fence");
                w.barrier();
                win.fence();
                win.free();
            });
        }
    }

    /** A window whose part at each rank is a 4 x 4 matrix of longs, every element -1 (what no access writes). */
    static Window matrixOfMinusOnes(Communicator w) {
        Window win = w.allocateWindow(16L * Long.BYTES, 8, Info.EMPTY);
        for (int i = 0; i < 16; i++) {
            win.segment().setAtIndex(ValueLayout.JAVA_LONG, i, -1);
        }
        return win;
    }

    private static void derivedTypes(MessagingRuleContext c) {
        Datatype column = Datatype.vector(4, 1, 4, Datatype.LONG).commit();
        c.runClean(2, "a matrix column put, got and accumulated", rank -> {
            Communicator w = rank.comm();
            int me = w.rank();
            int peer = 1 - me;
            Window win = matrixOfMinusOnes(w);
            long[] matrix = new long[16];
            Arrays.setAll(matrix, i -> 100L * me + i);
            win.fence();
            win.put(MemorySegment.ofArray(matrix), 1, column, peer, 1);
            win.fence();
            long[] fetched = new long[16];
            Arrays.fill(fetched, 7);
            win.get(MemorySegment.ofArray(fetched), 1, column, peer, 2);
            long[] ones = new long[16];
            Arrays.setAll(ones, i -> i % 4 == 0 ? 1 : 0);
            win.accumulate(MemorySegment.ofArray(ones), 1, column, peer, 1, Op.SUM);
            win.fence();
            long[] held = longs(win, 16);
            for (int i = 0; i < 16; i++) {
                checkEquals(i % 4 == 1 ? 100L * peer + i : -1, held[i], "element " + i + " of rank " + me
                        + "'s 4 x 4 part after rank " + peer + " put its column 0 into column 1 and added 1 to each of its elements");
                checkEquals(i % 4 == 0 ? -1L : 7L, fetched[i], "element " + i + " of rank " + me + "'s buffer after it got rank "
                        + peer + "'s column 2 into its column 0");
            }
            win.free();
        });
    }

    private static void postStartCompleteWait(MessagingRuleContext c) {
        c.runClean(3, "two rounds of post-start-complete-wait around a ring", rank -> {
            Communicator w = rank.comm();
            int n = w.size();
            int right = (w.rank() + 1) % n;
            int left = (w.rank() + n - 1) % n;
            Window win = w.allocateWindow(8, 8, Info.EMPTY);
            for (int round = 1; round <= 2; round++) {
                win.post(w.group().incl(left));
                win.start(w.group().incl(right));
                win.put(one(10L * round + w.rank()), 1, Datatype.LONG, right, 0);
                win.complete();
                win.waitExposure();
                checkEquals(10L * round + left, win.segment().get(ValueLayout.JAVA_LONG, 0),
                        "rank " + w.rank() + "'s part after the wait of round " + round + " (put by rank " + left + ")");
            }
            w.barrier();
            win.free();
        });
    }

    private static void exclusiveLock(MessagingRuleContext c) {
        c.runClean(2, "a second exclusive lock waits for the first", rank -> {
            Communicator w = rank.comm();
            Window win = w.allocateWindow(8, 8, Info.EMPTY);
            win.segment().set(ValueLayout.JAVA_LONG, 0, 0);
            win.fence();
            if (w.rank() == 0) {
                win.lock(LockType.EXCLUSIVE, 0);
                w.send(new int[] {1}, 1, NOTE);
                long watchUntil = System.nanoTime() + EXCLUSION_WATCH_NANOS;
                boolean otherGotIn = false;
                while (!otherGotIn && System.nanoTime() - watchUntil < 0) {
                    win.flush(0);
                    otherGotIn = w.iprobe(1, NOTE).isPresent();
                }
                win.put(one(42), 1, Datatype.LONG, 0, 0);
                win.unlock(0);
                long[] seen = new long[1];
                w.recv(seen, 1, NOTE);
                check(!otherGotIn, "rank 1 got its exclusive lock on rank 0 while rank 0 held one (it read " + seen[0] + ")");
                checkEquals(42L, seen[0], "what rank 1 read under its lock after rank 0's unlock");
                win.fence();
            } else {
                w.recv(new int[1], 0, NOTE);
                long[] seen = new long[1];
                win.lock(LockType.EXCLUSIVE, 0);
                win.get(MemorySegment.ofArray(seen), 1, Datatype.LONG, 0, 0);
                win.unlock(0);
                w.send(seen, 0, NOTE);
                win.fence();
            }
            win.free();
        });
    }

    private static void flush(MessagingRuleContext c) {
        for (boolean all : new boolean[] {false, true}) {
            c.runClean(3, all ? "lockAll, put, flushAll" : "lock, put, flush", rank -> {
                Communicator w = rank.comm();
                Window win = w.allocateWindow(16, 8, Info.EMPTY);
                win.segment().fill((byte) 0);
                win.fence();
                switch (w.rank()) {
                    case 1 -> {
                        if (all) {
                            win.lockAll();
                        } else {
                            win.lock(LockType.SHARED, 0);
                        }
                        win.put(one(7), 1, Datatype.LONG, 0, 0);
                        if (all) {
                            win.flushAll();
                        } else {
                            win.flush(0);
                        }
                        w.send(new int[] {1}, 2, NOTE);
                        w.recv(new int[1], 2, NOTE);
                        win.put(one(8), 1, Datatype.LONG, 0, 1);
                        if (all) {
                            win.unlockAll();
                        } else {
                            win.unlock(0);
                        }
                        w.send(new int[] {2}, 2, NOTE);
                    }
                    case 2 -> {
                        long[] seen = new long[2];
                        w.recv(new int[1], 1, NOTE);
                        win.lock(LockType.SHARED, 0);
                        win.get(MemorySegment.ofArray(seen), 1, Datatype.LONG, 0, 0);
                        win.unlock(0);
                        checkEquals(7L, seen[0], "rank 0's element read by rank 2 after rank 1's flush of its put");
                        w.send(new int[] {1}, 1, NOTE);
                        w.recv(new int[1], 1, NOTE);
                        win.lock(LockType.SHARED, 0);
                        win.get(MemorySegment.ofArray(seen).asSlice(8), 1, Datatype.LONG, 0, 1);
                        win.unlock(0);
                        checkEquals(8L, seen[1], "rank 0's element read by rank 2 after rank 1's unlock");
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

    private static void accumulateAtomicity(MessagingRuleContext c) {
        int perRank = 50;
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "accumulates and fetch-and-ops on one element from every rank", rank -> {
                Communicator w = rank.comm();
                Window win = w.allocateWindow(24, 8, Info.EMPTY);
                win.segment().fill((byte) 0);
                win.fence();
                long[] tickets = new long[perRank];
                long[] fetched = new long[perRank];
                win.lockAll();
                for (int i = 0; i < perRank; i++) {
                    win.accumulate(one(1), 1, Datatype.LONG, 0, 0, Op.SUM);
                    win.fetchAndOp(one(1), MemorySegment.ofArray(tickets).asSlice(8L * i, 8), Datatype.LONG, 0, 1, Op.SUM);
                    win.getAccumulate(one(1), MemorySegment.ofArray(fetched).asSlice(8L * i, 8), 1, Datatype.LONG, 0, 2, Op.SUM);
                    win.flush(0);
                }
                win.unlockAll();
                win.fence();
                if (w.rank() == 0) {
                    checkEquals((long) perRank * n, win.segment().get(ValueLayout.JAVA_LONG, 0), "the sum of " + perRank * n + " accumulates of 1");
                    checkEquals((long) perRank * n, win.segment().get(ValueLayout.JAVA_LONG, 8), "the sum of " + perRank * n + " fetch-and-adds of 1");
                    checkEquals((long) perRank * n, win.segment().get(ValueLayout.JAVA_LONG, 16),
                            "the sum of " + perRank * n + " get-accumulates of 1");
                }
                checkEachValueOnce(w, tickets, "fetch-and-add ticket");
                checkEachValueOnce(w, fetched, "get-accumulate ticket");
                win.free();
            });
        }
    }

    /** The values every rank got (each rank the same number) are 0, 1, 2, ..., each once. */
    private static void checkEachValueOnce(Communicator w, long[] mine, String what) {
        long[] all = new long[mine.length * w.size()];
        w.allgather(MemorySegment.ofArray(mine), mine.length, Datatype.LONG, MemorySegment.ofArray(all));
        Arrays.sort(all);
        for (int i = 0; i < all.length; i++) {
            checkEquals((long) i, all[i], what + " " + i + " (each value once)");
        }
    }

    private static void compareAndSwap(MessagingRuleContext c) {
        int perRank = 30;
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "compare-and-swap increments of one element from every rank", rank -> {
                Communicator w = rank.comm();
                Window win = w.allocateWindow(8, 8, Info.EMPTY);
                win.segment().fill((byte) 0);
                win.fence();
                long[] won = new long[perRank];
                long[] replaced = new long[1];
                long guess = 0;
                win.lockAll();
                for (int done = 0; done < perRank;) {
                    win.compareAndSwap(one(guess + 1), one(guess), MemorySegment.ofArray(replaced), Datatype.LONG, 0, 0);
                    win.flush(0);
                    check(replaced[0] >= guess, "compare-and-swap returned " + replaced[0] + " after rank " + w.rank() + " saw " + guess
                            + " (the element only grows)");
                    if (replaced[0] == guess) {
                        won[done++] = guess;
                        guess++;
                    } else {
                        guess = replaced[0];
                    }
                }
                win.unlockAll();
                win.fence();
                checkEachValueOnce(w, won, "the value replaced by successful swap");
                if (w.rank() == 0) {
                    checkEquals((long) perRank * n, win.segment().get(ValueLayout.JAVA_LONG, 0),
                            "the element after " + perRank * n + " successful swaps");
                }
                win.free();
            });
        }
    }

    private static void sharedQuery(MessagingRuleContext c) {
        c.runClean(3, "neighbours' parts of a shared window", rank -> {
            Communicator w = rank.comm();
            int n = w.size();
            int right = (w.rank() + 1) % n;
            int left = (w.rank() + n - 1) % n;
            Window win = w.allocateSharedWindow(16, 8, Info.EMPTY);
            win.segment().set(ValueLayout.JAVA_LONG, 0, 500L + w.rank());
            win.fence();
            MemorySegment neighbour = win.sharedQuery(right);
            checkEquals(16L, neighbour.byteSize(), "size of rank " + right + "'s shared part");
            checkEquals(500L + right, neighbour.get(ValueLayout.JAVA_LONG, 0), "rank " + right + "'s store, loaded through sharedQuery");
            neighbour.set(ValueLayout.JAVA_LONG, 8, 600L + w.rank());
            win.sync();
            win.fence();
            checkEquals(600L + left, win.segment().get(ValueLayout.JAVA_LONG, 8), "the store of rank " + left + " through sharedQuery");
            win.fence();
            win.free();
        });
    }

    private static void acrossProcesses(MessagingRuleContext c) {
        try (ProcessJob job = ProcessJob.start(c.target().provider().name(), ProcessRules.processProperties(c, 3), 3, "windows")) {
            boolean done = job.awaitLines(l -> l.contains(" windows "), 3, PROCESS_RUN);
            check(done, "the 3 rank processes did not all report within " + PROCESS_RUN.toSeconds() + " s: " + job.lines());
            for (String line : job.lines()) {
                check(!line.contains(" windows FAILED"), line);
            }
        }
    }

    private static void badCalls(MessagingRuleContext c) {
        c.runClean(2, "bad one-sided calls", rank -> {
            Communicator w = rank.comm();
            int other = 1 - w.rank();
            Window win = w.allocateWindow(16, 8, Info.EMPTY);
            MemorySegment x = MemorySegment.ofArray(new long[1]);
            expectError(ErrorClass.RMA_SYNC, "a put before any epoch", () -> win.put(x, 1, Datatype.LONG, other, 0));
            win.fence();
            expectError(ErrorClass.RMA_RANGE, "a put at displacement 2 of a 2-element part", () -> win.put(x, 1, Datatype.LONG, other, 2));
            expectError(ErrorClass.RMA_RANGE, "a get at displacement -1", () -> win.get(x, 1, Datatype.LONG, other, -1));
            expectError(ErrorClass.RMA_RANGE, "an accumulate reaching past the part",
                    () -> win.accumulate(MemorySegment.ofArray(new long[2]), 2, Datatype.LONG, other, 1, Op.SUM));
            expectError(ErrorClass.RANK, "a lock on rank 2 of a 2-rank window", () -> win.lock(LockType.EXCLUSIVE, 2));
            expectError(ErrorClass.RMA_SYNC, "complete without start", win::complete);
            expectError(ErrorClass.RMA_SYNC, "wait without post", win::waitExposure);
            expectError(ErrorClass.RMA_SYNC, "unlock without lock", () -> win.unlock(other));
            win.fence();
            win.free();
            expectError(ErrorClass.WIN, "a fence on a freed window", win::fence);
            Window mixed = w.allocateWindow(8, 8, Info.EMPTY);
            if (w.rank() == 0) {
                expectError(ErrorClass.RMA_SYNC, "a fence where the other rank posts", mixed::fence);
            } else {
                mixed.post(w.group().incl(0));
                expectError(ErrorClass.RMA_SYNC, "a wait where the other rank fences", mixed::waitExposure);
            }
        });
    }
}
