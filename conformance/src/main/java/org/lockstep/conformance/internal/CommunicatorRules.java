package org.lockstep.conformance.internal;

import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;
import static org.lockstep.api.Communicator.PROC_NULL;
import static org.lockstep.conformance.Group.COMM;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.ibm;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.ErrorHandler;
import org.lockstep.api.FatalLockstepError;
import org.lockstep.api.Group;
import org.lockstep.api.Info;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.Keyval;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleViolation;
import org.lockstep.conformance.run.RankContext;

/**
 * Communicators and groups (MPI 4.1 chapter 7): dup and idup isolate their traffic, groups
 * compute as the standard says, create and createGroup build communicators of subsets, and
 * compare tells identical, congruent, similar and unequal apart.
 */
final class CommunicatorRules {
    private CommunicatorRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(COMM, 1, REQUIRED, "dupAndIdupIsolateTheirTraffic",
                        "A communicator from dup or idup has the same group and ranks, and its messages never match a wildcard receive"
                                + " on the parent nor the parent's on it; compare calls it CONGRUENT.",
                        List.of(standard("§7.4.2 MPI_Comm_dup, MPI_Comm_idup"), mpich("comm/dup.c"), mpich("comm/comm_idup.c")),
                        CommunicatorRules::dupIsolates),
                messaging(COMM, 2, REQUIRED, "groupOperationsFollowTheStandard",
                        "group, incl, excl, range_incl, union, intersection, difference, translate_ranks and compare give the members"
                                + " and order MPI defines, and the empty group is empty.",
                        List.of(standard("§7.3 group management"), mpich("group/groupcreate.c"), mpich("group/grouptest.c"),
                                ibm("group/group")), CommunicatorRules::groupOperations),
                messaging(COMM, 3, REQUIRED, "createAndCreateGroupBuildSubsets",
                        "create (collective over the parent) and createGroup (over the members only) give the members a working"
                                + " communicator ordered as the group, others null; a group with an outsider is a GROUP error.",
                        List.of(standard("§7.4.2 MPI_Comm_create, MPI_Comm_create_group"), mpich("comm/commcreate1.c"),
                                mpich("comm/comm_create_group.c")), CommunicatorRules::createSubsets),
                messaging(COMM, 4, REQUIRED, "intercommunicatorsJoinTwoGroups",
                        "createIntercommunicator joins two disjoint groups: point-to-point names remote ranks (statuses too), barrier,"
                                + " bcast, gather, scatter, allgather, alltoall, reduce and allreduce move data from one group to the"
                                + " other with ROOT/PROC_NULL roots, merge orders the groups by high, dup isolates its traffic; a remote leader"
                                + " inside the local group is a RANK error at every member, not a hang.",
                        List.of(standard("§7.6.2 MPI_Intercomm_create, MPI_Intercomm_merge"), standard("§6.2.2 intercommunicator collectives"),
                                mpich("comm/icm.c"), mpich("coll/icbcast.c"), mpich("coll/icallreduce.c")),
                        CommunicatorRules::intercommunicators),
                messaging(COMM, 5, REQUIRED, "attributesFollowTheirKeys",
                        "setAttribute/attribute/deleteAttribute hold one value per key; a replaced or deleted value goes to the key's"
                                + " deleter (and stays if the deleter throws); dup and idup hold what each copier gives; close hands"
                                + " every value to its deleter, latest set first; a freed key takes no new value (KEYVAL).",
                        List.of(standard("§7.7 caching: MPI_Comm_create_keyval, MPI_Comm_set_attr, MPI_Comm_get_attr,"
                                + " MPI_Comm_delete_attr, MPI_Comm_free_keyval"), mpich("attr/attrt.c"), mpich("attr/attrorder.c"),
                                mpich("attr/attrdeleteget.c")), CommunicatorRules::attributes),
                messaging(COMM, 6, REQUIRED, "hintsAreKeptAndPassedOn",
                        "setInfo's hints are what info() gives back; dup and idup pass the parent's hints on, dup(hints) and"
                                + " idup(hints) give their own; a communicator without hints has none.",
                        List.of(standard("§7.4.4 MPI_Comm_set_info, MPI_Comm_get_info, MPI_Comm_dup_with_info, MPI_Comm_idup_with_info"),
                                mpich("info/infoget.c"), mpich("comm/comm_info.c")), CommunicatorRules::hints),
                messaging(COMM, 7, REQUIRED, "errorHandlersSeeEachErrorOnce",
                        "RETURN is the default and the call throws; a handler of one's own sees each error of a call once (a call"
                                + " made inside another too) and of the requests the communicator starts, before the call throws it;"
                                + " dup, split and createGroup pass the handler on; FATAL throws FatalLockstepError; callErrorHandler"
                                + " runs the handler.",
                        List.of(standard("§9.3 error handlers: MPI_Comm_set_errhandler, MPI_Comm_get_errhandler,"
                                + " MPI_Comm_call_errhandler, MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL"), mpich("errhan/errfatal.c"),
                                mpich("errhan/commcall.c"), mpich("errhan/dynamic_errcode_predefined_errclass.c")),
                        CommunicatorRules::errorHandlers));
    }

    private static void dupIsolates(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "dup and idup beside the parent", rank -> {
                Communicator w = rank.comm();
                Communicator d = w.dup();
                CommunicatorRequest pending = w.idup();
                pending.await();
                Communicator i = pending.communicator();
                for (Communicator made : new Communicator[] {d, i}) {
                    checkEquals(w.size(), made.size(), "size of a duplicate");
                    checkEquals(w.rank(), made.rank(), "rank in a duplicate");
                    checkEquals(Group.Comparison.CONGRUENT, w.compare(made), "compare of a communicator and its duplicate");
                }
                checkEquals(Group.Comparison.IDENT, w.compare(w), "compare of a communicator with itself");
                int next = (w.rank() + 1) % w.size();
                // the duplicates' messages go first; a shared context would let the parent's wildcard take them
                d.send(new int[] {1}, next, 3);
                i.send(new int[] {2}, next, 3);
                w.send(new int[] {3}, next, 3);
                int[] got = new int[1];
                Status s = w.recv(got, ANY_SOURCE, ANY_TAG);
                checkEquals(3, got[0], "a wildcard receive on the parent took a duplicate's message");
                checkEquals((w.rank() + w.size() - 1) % w.size(), s.source(), "source of the parent's message");
                i.recv(got, ANY_SOURCE, ANY_TAG);
                checkEquals(2, got[0], "the idup communicator's message");
                d.recv(got, ANY_SOURCE, ANY_TAG);
                checkEquals(1, got[0], "the dup communicator's message");
                d.close();
                i.close();
            });
        }
    }

    private static void groupOperations(MessagingRuleContext c) {
        c.runClean(4, "group operations", rank -> {
            Communicator w = rank.comm();
            Group g = w.group();
            checkEquals(4, g.size(), "world group size");
            checkEquals(w.rank(), g.rank(), "own rank in the world group");
            Group odd = g.incl(3, 1);
            checkEquals(2, odd.size(), "incl size");
            checkEquals(g.worldRank(3), odd.worldRank(0), "incl keeps the order given");
            checkEquals(w.rank() == 3 ? 0 : w.rank() == 1 ? 1 : Communicator.UNDEFINED, odd.rank(), "own rank in incl(3, 1)");
            Group even = g.excl(1, 3);
            checkEquals(g.worldRank(2), even.worldRank(1), "excl keeps the group's order");
            Group range = g.rangeIncl(new int[][] {{3, 0, -2}});
            checkEquals(Group.Comparison.IDENT, range.compare(odd), "range_incl(3, 0, -2) is incl(3, 1)");
            Group all = even.union(odd);
            checkEquals(4, all.size(), "union size");
            checkEquals(Group.Comparison.SIMILAR, all.compare(g), "union of even and odd is the world, reordered");
            checkEquals(0, even.intersection(odd).size(), "intersection of even and odd");
            checkEquals(Group.Comparison.IDENT, g.difference(odd).compare(even), "world minus odd is even");
            int[] inOdd = g.translateRanks(new int[] {0, 1, 3}, odd);
            checkEquals(Communicator.UNDEFINED, inOdd[0], "translate of rank 0 into odd");
            checkEquals(1, inOdd[1], "translate of rank 1 into odd");
            checkEquals(0, inOdd[2], "translate of rank 3 into odd");
            checkEquals(0, Group.EMPTY.size(), "the empty group's size");
            checkEquals(Communicator.UNDEFINED, Group.EMPTY.rank(), "own rank in the empty group");
            checkEquals(Group.Comparison.UNEQUAL, Group.EMPTY.compare(g), "empty against world");
            expectError(ErrorClass.RANK, "incl of a rank outside the group", () -> g.incl(4));
        });
    }

    private static void createSubsets(MessagingRuleContext c) {
        c.runClean(4, "create and createGroup", rank -> {
            Communicator w = rank.comm();
            Group reversedOdd = w.group().incl(3, 1);
            Communicator made = w.create(reversedOdd);
            boolean member = w.rank() % 2 == 1;
            check(member == (made != null), "create gave rank " + w.rank() + (made == null ? " no" : " a") + " communicator");
            if (made != null) {
                checkEquals(2, made.size(), "size of the created communicator");
                checkEquals(w.rank() == 3 ? 0 : 1, made.rank(), "rank in the created communicator follows the group");
                int[] sum = new int[1];
                made.allreduce(java.lang.foreign.MemorySegment.ofArray(new int[] {w.rank()}), java.lang.foreign.MemorySegment.ofArray(sum),
                        1, org.lockstep.api.Datatype.INT, org.lockstep.api.Op.SUM);
                checkEquals(4, sum[0], "allreduce on the created communicator");
                made.close();
            }
            if (w.rank() < 2) { // only ranks 0 and 1 call createGroup; ranks 2 and 3 go on
                Communicator pair = w.createGroup(w.group().incl(1, 0), 7);
                checkEquals(1 - w.rank(), pair.rank(), "rank in createGroup's communicator follows the group");
                int[] got = new int[1];
                pair.sendrecv(java.lang.foreign.MemorySegment.ofArray(new int[] {w.rank()}), 1, org.lockstep.api.Datatype.INT, 1 - pair.rank(), 0,
                        java.lang.foreign.MemorySegment.ofArray(got), 1, org.lockstep.api.Datatype.INT, 1 - pair.rank(), 0);
                checkEquals(1 - w.rank(), got[0], "exchange on createGroup's communicator");
                pair.close();
            }
            Group outsider = Group.of(w.group().selfWorldRank(), 0, 99);
            expectError(ErrorClass.GROUP, "create with a process outside the communicator", () -> w.create(outsider));
        });
    }

    private static void intercommunicators(MessagingRuleContext c) {
        c.runClean(4, "an intercommunicator between the even and the odd ranks", rank -> {
            Communicator w = rank.comm();
            boolean even = w.rank() % 2 == 0;
            Communicator half = w.split(w.rank() % 2, w.rank());
            Intercommunicator ic = half.createIntercommunicator(0, w, even ? 1 : 0, 5);
            checkEquals(2, ic.size(), "local size");
            checkEquals(2, ic.remoteSize(), "remote size");
            checkEquals(w.rank() / 2, ic.rank(), "rank in the local group");
            int[] remoteWorld = {even ? 1 : 0, even ? 3 : 2};
            for (int i = 0; i < 2; i++) {
                checkEquals(remoteWorld[i], ic.remoteGroup().worldRank(i), "world rank of remote rank " + i);
            }
            // point-to-point names remote ranks, and statuses too
            int[] got = new int[1];
            ic.send(MemorySegment.ofArray(new int[] {w.rank()}), 1, Datatype.INT, ic.rank(), 11);
            Status s = ic.recv(MemorySegment.ofArray(got), 1, Datatype.INT, ANY_SOURCE, 11);
            checkEquals(ic.rank(), s.source(), "source of a message across (a remote rank)");
            checkEquals(remoteWorld[ic.rank()], got[0], "message across");
            // bcast from the odd group's rank 0
            int[] value = {even ? -1 : 42};
            ic.bcast(MemorySegment.ofArray(value), 1, Datatype.INT, even ? 0 : ic.rank() == 0 ? Intercommunicator.ROOT : PROC_NULL);
            if (even) {
                checkEquals(42, value[0], "bcast from the other group");
            }
            // allreduce: each group gets the sum of the other's
            int[] sum = new int[1];
            ic.allreduce(MemorySegment.ofArray(new int[] {w.rank()}), MemorySegment.ofArray(sum), 1, Datatype.INT, Op.SUM);
            checkEquals(even ? 1 + 3 : 0 + 2, sum[0], "allreduce across (the remote group's sum)");
            // allgather: the remote group's blocks in remote rank order
            int[] all = new int[2];
            ic.allgather(MemorySegment.ofArray(new int[] {w.rank()}), 1, Datatype.INT, MemorySegment.ofArray(all));
            checkEquals(remoteWorld[0], all[0], "allgather block 0");
            checkEquals(remoteWorld[1], all[1], "allgather block 1");
            // gather at the even group's rank 1
            int[] gathered = new int[2];
            ic.gather(MemorySegment.ofArray(new int[] {10 * w.rank()}), 1, Datatype.INT, MemorySegment.ofArray(gathered),
                    even ? (ic.rank() == 1 ? Intercommunicator.ROOT : PROC_NULL) : 1);
            if (even && ic.rank() == 1) {
                checkEquals(10, gathered[0], "gather block from remote rank 0");
                checkEquals(30, gathered[1], "gather block from remote rank 1");
            }
            // scatter from the odd group's rank 1
            int[] piece = new int[1];
            ic.scatter(MemorySegment.ofArray(new int[] {7, 8}), 1, Datatype.INT, MemorySegment.ofArray(piece),
                    even ? 1 : ic.rank() == 1 ? Intercommunicator.ROOT : PROC_NULL);
            if (even) {
                checkEquals(7 + ic.rank(), piece[0], "scatter block");
            }
            // alltoall: block j to remote rank j
            int[] out = {100 * w.rank(), 100 * w.rank() + 1};
            int[] in = new int[2];
            ic.alltoall(MemorySegment.ofArray(out), 1, Datatype.INT, MemorySegment.ofArray(in));
            for (int i = 0; i < 2; i++) {
                checkEquals(100 * remoteWorld[i] + ic.rank(), in[i], "alltoall block from remote rank " + i);
            }
            // reduce at the odd group's rank 1
            int[] reduced = new int[1];
            ic.reduce(MemorySegment.ofArray(new int[] {w.rank() + 1}), MemorySegment.ofArray(reduced), 1, Datatype.INT, Op.PROD,
                    even ? 1 : ic.rank() == 1 ? Intercommunicator.ROOT : PROC_NULL);
            if (!even && ic.rank() == 1) {
                checkEquals(1 * 3, reduced[0], "reduce of the even group's contributions");
            }
            ic.barrier();
            // merge: the group passing high = false first; on a tie, the group whose rank 0 has the lower world rank
            // (checked after every rank's last collective call, so that a failed check leaves no rank waiting)
            Communicator oddFirst = ic.merge(even);
            Communicator evenFirst = ic.merge(false);
            int[] total = new int[1];
            oddFirst.allreduce(MemorySegment.ofArray(new int[] {w.rank()}), MemorySegment.ofArray(total), 1, Datatype.INT, Op.SUM);
            int oddFirstRank = oddFirst.rank();
            int evenFirstRank = evenFirst.rank();
            // a duplicate's messages stay off the original
            Intercommunicator d = ic.dup();
            d.send(MemorySegment.ofArray(new int[] {1}), 1, Datatype.INT, ic.rank(), 12);
            ic.send(MemorySegment.ofArray(new int[] {2}), 1, Datatype.INT, ic.rank(), 12);
            ic.recv(MemorySegment.ofArray(got), 1, Datatype.INT, ANY_SOURCE, ANY_TAG);
            checkEquals(2, got[0], "a wildcard receive on the intercommunicator took its duplicate's message");
            d.recv(MemorySegment.ofArray(got), 1, Datatype.INT, ANY_SOURCE, ANY_TAG);
            checkEquals(1, got[0], "the duplicate's message");
            expectError(ErrorClass.RANK, "a destination outside the remote group", () -> ic.send(MemorySegment.ofArray(new int[] {0}), 1, Datatype.INT, 2, 0));
            expectError(ErrorClass.ROOT, "a bcast root outside the remote group", () -> ic.bcast(MemorySegment.ofArray(value), 1,
                    Datatype.INT, 5));
            d.close();
            oddFirst.close();
            evenFirst.close();
            ic.close();
            expectError(ErrorClass.COMM, "a closed intercommunicator", () -> ic.barrier());
            // a remote leader inside the local group waits in this very creation and would never answer the exchange
            expectError(ErrorClass.RANK, "a remote leader that is a member of the local group",
                    () -> half.createIntercommunicator(0, w, even ? 2 : 3, 9));
            half.close();
            checkEquals(6, total[0], "allreduce on the merged communicator");
            checkEquals(even ? 2 + w.rank() / 2 : w.rank() / 2, oddFirstRank, "rank after merge(high = even): the odd group first");
            checkEquals(even ? w.rank() / 2 : 2 + w.rank() / 2, evenFirstRank,
                    "rank after merge(false) on both sides: the group whose rank 0 has the lower world rank first");
        });
        c.runClean(5, "an intercommunicator between groups of 2 and 3 ranks", CommunicatorRules::unevenIntercommunicator);
    }

    /**
     * Groups of different sizes, A = world ranks 0-1 and B = 2-4: every count that is the remote
     * group's size (gather, scatter, allgather, alltoall) differs from the local one, so a
     * collective that mixes them up moves the wrong number of blocks.
     */
    private static void unevenIntercommunicator(RankContext rank) {
        Communicator w = rank.comm();
        boolean inA = w.rank() < 2;
        Communicator half = w.split(inA ? 0 : 1, w.rank());
        Intercommunicator ic = half.createIntercommunicator(0, w, inA ? 2 : 0, 6);
        int[] remoteWorld = inA ? new int[] {2, 3, 4} : new int[] {0, 1};
        int me = ic.rank();
        int[] got = {-1};
        if (me == 0) {
            ic.sendrecv(MemorySegment.ofArray(new int[] {w.rank()}), 1, Datatype.INT, 0, 13, MemorySegment.ofArray(got), 1, Datatype.INT,
                    0, 13);
        }
        int[] value = {inA ? -1 : 44};
        ic.bcast(MemorySegment.ofArray(value), 1, Datatype.INT, inA ? 2 : me == 2 ? Intercommunicator.ROOT : PROC_NULL);
        int[] sum = new int[1];
        ic.allreduce(MemorySegment.ofArray(new int[] {w.rank()}), MemorySegment.ofArray(sum), 1, Datatype.INT, Op.SUM);
        int[] all = new int[remoteWorld.length];
        ic.allgather(MemorySegment.ofArray(new int[] {w.rank()}), 1, Datatype.INT, MemorySegment.ofArray(all));
        int[] gathered = new int[3];
        ic.gather(MemorySegment.ofArray(new int[] {10 * w.rank()}), 1, Datatype.INT, MemorySegment.ofArray(gathered),
                inA ? (me == 1 ? Intercommunicator.ROOT : PROC_NULL) : 1);
        int[] piece = {-1};
        ic.scatter(MemorySegment.ofArray(new int[] {7, 8}), 1, Datatype.INT, MemorySegment.ofArray(piece),
                inA ? 0 : me == 0 ? Intercommunicator.ROOT : PROC_NULL);
        int[] out = new int[remoteWorld.length];
        for (int j = 0; j < out.length; j++) {
            out[j] = 100 * w.rank() + j;
        }
        int[] in = new int[remoteWorld.length];
        ic.alltoall(MemorySegment.ofArray(out), 1, Datatype.INT, MemorySegment.ofArray(in));
        int[] product = new int[1];
        ic.reduce(MemorySegment.ofArray(new int[] {w.rank() + 1}), MemorySegment.ofArray(product), 1, Datatype.INT, Op.PROD,
                inA ? 1 : me == 1 ? Intercommunicator.ROOT : PROC_NULL);
        Communicator merged = ic.merge(inA);
        int mergedRank = merged.rank();
        merged.close();
        ic.close();
        half.close();
        checkEquals(inA ? 3 : 2, ic.remoteSize(), "remote size");
        if (me == 0) {
            checkEquals(remoteWorld[0], got[0], "sendrecv with remote rank 0");
        }
        if (inA) {
            checkEquals(44, value[0], "bcast from the other group's rank 2");
        }
        checkEquals(inA ? 2 + 3 + 4 : 0 + 1, sum[0], "allreduce: the remote group's sum");
        for (int i = 0; i < remoteWorld.length; i++) {
            checkEquals(remoteWorld[i], all[i], "allgather block " + i);
            checkEquals(100 * remoteWorld[i] + me, in[i], "alltoall block from remote rank " + i);
        }
        if (inA && me == 1) {
            checkEquals(List.of(20, 30, 40), List.of(gathered[0], gathered[1], gathered[2]), "gather of the other group's blocks");
        }
        if (inA) {
            checkEquals(7 + me, piece[0], "scatter block");
        }
        if (!inA && me == 1) {
            checkEquals(1 * 2, product[0], "reduce of the other group's contributions");
        }
        checkEquals(inA ? 3 + me : me, mergedRank, "rank after merge(high = in the group of 2): the group of 3 first");
    }

    private static void attributes(MessagingRuleContext c) {
        c.runClean(2, "attributes on a duplicate of the world", rank -> {
            List<String> deleted = new ArrayList<>();
            boolean[] refuse = {false};
            Keyval<String> primed = Keyval.create((original, v) -> Optional.of(v + "'"), (comm, v) -> deleted.add(comm.name() + ":" + v));
            Keyval<Integer> local = Keyval.create(Keyval.notCopied(), (comm, v) -> deleted.add(comm.name() + ":" + v));
            Keyval<String> stubborn = Keyval.create(Keyval.sameValue(), (comm, v) -> {
                if (refuse[0]) {
                    throw new LockstepException(ErrorClass.OTHER, "this deleter refuses");
                }
                deleted.add(comm.name() + ":" + v);
            });
            Keyval<Long> freed = Keyval.create();
            Communicator d = rank.comm().dup();
            d.setName("d");
            d.setAttribute(primed, "a");
            d.setAttribute(local, 1);
            d.setAttribute(local, 2);
            d.setAttribute(freed, 7L);
            freed.free();
            // collectives first, so that a failed check leaves no rank waiting
            Communicator e = d.dup();
            CommunicatorRequest started = d.idup();
            started.await();
            Communicator f = started.communicator();
            e.setName("e");
            f.setName("f");
            checkEquals(List.of("d:1"), deleted, "values handed to deleters after replacing 1 by 2");
            checkEquals(Optional.of("a"), d.attribute(primed), "d's value under the copied key");
            checkEquals(Optional.of(2), d.attribute(local), "d's value under the key not copied, after replacing");
            checkEquals(Optional.of("a'"), e.attribute(primed), "dup's value under the copied key (its copier's)");
            checkEquals(Optional.empty(), e.attribute(local), "dup's value under a key whose copier gives none");
            checkEquals(Optional.of("a'"), f.attribute(primed), "idup's value under the copied key");
            checkEquals(Optional.of(7L), d.attribute(freed), "a value set before its key was freed");
            expectError(ErrorClass.KEYVAL, "setAttribute with a freed key", () -> d.setAttribute(freed, 8L));
            d.deleteAttribute(primed);
            checkEquals(Optional.empty(), d.attribute(primed), "d's value after deleteAttribute");
            checkEquals(Optional.of("a'"), e.attribute(primed), "dup's value after the original's was deleted");
            e.setAttribute(stubborn, "s");
            refuse[0] = true;
            expectError(ErrorClass.OTHER, "deleteAttribute whose deleter throws", () -> e.deleteAttribute(stubborn));
            checkEquals(Optional.of("s"), e.attribute(stubborn), "a value whose deleter threw stays");
            refuse[0] = false;
            deleted.clear();
            e.close();
            checkEquals(List.of("e:s", "e:a'"), deleted, "values handed to deleters by close, latest set first");
            expectError(ErrorClass.COMM, "attribute on a closed communicator", () -> e.attribute(primed));
            f.close();
            d.close();
            checkEquals(List.of("e:s", "e:a'", "f:a'", "d:2"), deleted, "values handed to deleters by the other closes"
                    + " (the freed key's too, through its nothing-on-delete deleter)");
        });
    }

    private static void hints(MessagingRuleContext c) {
        c.runClean(2, "hints on a duplicate of the world", rank -> {
            Communicator d = rank.comm().dup();
            Info none = d.info();
            Info hints = Info.EMPTY.with("mpi_assert_no_any_tag", "true").with("lockstep_rule", "COMM.06 rank " + d.rank());
            d.setInfo(hints);
            Communicator e = d.dup();
            CommunicatorRequest started = d.idup();
            started.await();
            Communicator f = started.communicator();
            Info own = Info.EMPTY.with("mpi_assert_exact_length", "true");
            Communicator g = d.dup(own);
            CommunicatorRequest startedWithHints = d.idup(own);
            startedWithHints.await();
            Communicator h = startedWithHints.communicator();
            checkEquals(Info.EMPTY, none, "hints of a communicator nobody gave any");
            checkEquals(hints, d.info(), "hints read back after setInfo");
            checkEquals(hints, e.info(), "hints of a dup");
            checkEquals(hints, f.info(), "hints of an idup");
            checkEquals(own, g.info(), "hints of dup(hints)");
            checkEquals(own, h.info(), "hints of idup(hints)");
            checkEquals(hints, d.info(), "the parent's hints after dup(hints)");
            h.close();
            g.close();
            f.close();
            e.close();
            d.close();
            expectError(ErrorClass.COMM, "info() of a closed communicator", d::info);
        });
    }

    private static void errorHandlers(MessagingRuleContext c) {
        c.runClean(2, "error handlers on duplicates of the world", rank -> {
            Communicator d = rank.comm().dup();
            int other = 1 - d.rank();
            checkEquals(ErrorHandler.RETURN, d.errorHandler(), "the default error handler");
            expectError(ErrorClass.RANK, "a send to rank 5 under RETURN", () -> d.send(MemorySegment.ofArray(new int[1]), 1,
                    Datatype.INT, 5, 0));
            List<ErrorClass> seen = new ArrayList<>();
            ErrorHandler counting = (comm, error) -> seen.add(error.errorClass());
            d.setErrorHandler(counting);
            // collectives first, so that a failed check leaves no rank waiting
            Communicator e = d.dup();
            Communicator s = d.split(0, d.rank());
            // a message longer than its receive: the request's error reaches the handler at await
            int[] two = {1, 2};
            int[] one = new int[1];
            Request truncated = d.irecv(MemorySegment.ofArray(one), 1, Datatype.INT, other, 3);
            d.send(MemorySegment.ofArray(two), 2, Datatype.INT, other, 3);
            expectError(ErrorClass.TRUNCATE, "a receive of a message longer than its buffer", truncated::await);
            d.barrier();
            checkEquals(List.of(ErrorClass.TRUNCATE), seen, "errors the handler saw: the request's truncation");
            expectError(ErrorClass.RANK, "a send to rank 5 under a handler that returns", () -> d.send(MemorySegment.ofArray(new int[1]),
                    1, Datatype.INT, 5, 0));
            // sendrecvReplace's receive inside it truncates: the handler sees that error once
            d.send(MemorySegment.ofArray(two), 2, Datatype.INT, other, 4);
            expectError(ErrorClass.TRUNCATE, "sendrecvReplace receiving a longer message", () -> d.sendrecvReplace(
                    MemorySegment.ofArray(new int[1]), 1, Datatype.INT, other, 5, other, 4));
            d.recv(MemorySegment.ofArray(one), 1, Datatype.INT, other, 5);
            checkEquals(List.of(ErrorClass.TRUNCATE, ErrorClass.RANK, ErrorClass.TRUNCATE), seen,
                    "errors the handler saw, once each (sendrecvReplace's receive inside it too)");
            checkEquals(counting, e.errorHandler(), "the handler of a dup");
            checkEquals(counting, s.errorHandler(), "the handler of a split");
            expectError(ErrorClass.TAG, "a receive with tag -5 on the dup", () -> e.recv(MemorySegment.ofArray(one), 1, Datatype.INT,
                    other, -5));
            checkEquals(ErrorClass.TAG, seen.getLast(), "the error the dup's handler saw");
            d.callErrorHandler(new LockstepException(ErrorClass.OTHER, "raised by the program"));
            checkEquals(ErrorClass.OTHER, seen.getLast(), "the error callErrorHandler handed over");
            e.setErrorHandler(ErrorHandler.FATAL);
            try {
                e.send(MemorySegment.ofArray(new int[1]), 1, Datatype.INT, 5, 0);
                throw new RuleViolation("a send to rank 5 under FATAL returned");
            } catch (FatalLockstepError fatal) {
                checkEquals(ErrorClass.RANK, fatal.errorClass(), "the class of the fatal error");
            } catch (LockstepException notFatal) {
                throw new RuleViolation("a send to rank 5 under FATAL threw " + notFatal.errorClass() + ", not FatalLockstepError");
            }
            s.close();
            e.close();
            d.close();
        });
    }
}
