package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.COMM;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Group;
import org.lockstep.api.Op;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * {@code splitType(SHARED)} (MPI 4.1 §7.4.2), whose parts a provider chooses (one device, one host,
 * one rank each), checked for what MPI fixes whatever the choice; with it {@code compare}'s SIMILAR
 * and UNEQUAL and communicator names (§7.4.1, §7.8).
 */
final class SplitTypeRules {
    private SplitTypeRules() {
    }

    static List<Rule> rules() {
        return List.of(messaging(COMM, 11, REQUIRED, "splitTypeSharedPartitionsByKey",
                "splitType(SHARED) puts every rank in exactly one part, the same part at each of its members, ordered by key (then"
                        + " rank), on a context of its own; compare calls a reordered communicator SIMILAR and one of other members"
                        + " UNEQUAL; a name set on a communicator is what it answers.",
                List.of(standard("§7.4.2 MPI_Comm_split_type"), standard("§7.4.1 MPI_Comm_compare"), standard("§7.8 naming objects"),
                        mpich("comm/cmsplit_type.c"), mpich("comm/commname.c")),
                SplitTypeRules::splitType));
    }

    private static void splitType(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "splitType(SHARED), compare and names", rank -> {
                Communicator w = rank.comm();
                int p = w.size();
                int me = w.rank();
                Communicator shared = w.splitType(Communicator.SplitType.SHARED, p - me); // reversed: highest rank first
                check(shared != null, "splitType(SHARED) gave this rank no communicator");
                // my part, as ranks of w in the part's order, padded with -1
                int[] inW = shared.group().translateRanks(range(shared.size()), w.group());
                long[] part = new long[p];
                Arrays.fill(part, -1);
                for (int i = 0; i < inW.length; i++) {
                    part[i] = inW[i];
                }
                checkEquals(me, (int) part[shared.rank()], "my rank in my part, as a rank of the parent");
                for (int i = 1; i < inW.length; i++) {
                    check(inW[i - 1] > inW[i], "splitType(SHARED) with key p - rank did not order its part by key: " + Arrays.toString(inW));
                }
                long[] one = {1};
                long[] count = new long[1];
                shared.allreduce(MemorySegment.ofArray(one), MemorySegment.ofArray(count), 1, Datatype.LONG, Op.SUM);
                checkEquals((long) shared.size(), count[0], "an allreduce over my part counts its members");
                // a context of its own: a ring of messages on the part, while the parent has a wildcard receive of that tag
                // posted first, which must get only the parent's own message
                int[] onParent = new int[1];
                org.lockstep.api.Request wildcard = w.irecv(onParent, Communicator.ANY_SOURCE, 7);
                int next = (shared.rank() + 1) % shared.size();
                int prev = (shared.rank() + shared.size() - 1) % shared.size();
                int[] fromPrev = new int[1];
                org.lockstep.api.Request in = shared.irecv(fromPrev, prev, 7);
                shared.isend(new int[] {me}, next, 7).await();
                in.await();
                checkEquals((int) part[prev], fromPrev[0], "the ring message on my part, from its previous rank");
                w.isend(new int[] {-1 - me}, me, 7).await();
                wildcard.await();
                checkEquals(-1 - me, onParent[0], "the parent's wildcard receive got a message of the part");
                long[][] parts = Definitions.atRankZero(w, part);
                if (parts != null) { // each rank is in its own part (checked above), so agreeing members make a partition
                    for (int r = 0; r < p; r++) {
                        for (long member : parts[r]) {
                            if (member >= 0) {
                                checkEquals(Arrays.toString(parts[r]), Arrays.toString(parts[(int) member]),
                                        "the part of rank " + r + " and of its member " + member);
                            }
                        }
                    }
                }
                Communicator reversed = w.split(0, p - me);
                checkEquals(p > 1 ? Group.Comparison.SIMILAR : Group.Comparison.CONGRUENT, w.compare(reversed),
                        "compare of the world and its split in reverse order");
                Communicator halves = w.split(me % 2, me);
                checkEquals(p > 1 ? Group.Comparison.UNEQUAL : Group.Comparison.CONGRUENT, w.compare(halves),
                        "compare of the world and a half of it");
                String name = "part of " + me;
                shared.setName(name);
                checkEquals(name, shared.name(), "the name set on a communicator");
                halves.close();
                reversed.close();
                shared.close();
            });
        }
    }

    private static int[] range(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = i;
        }
        return r;
    }
}
