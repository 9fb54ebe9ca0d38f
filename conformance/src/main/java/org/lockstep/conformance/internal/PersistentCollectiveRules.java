package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.COLL;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.PersistentRequest;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * Every persistent collective of an intracommunicator (MPI 4.1 §6.13), not only the bcast and
 * allreduce of COLL.11: all seventeen made once, started together by {@code startAll} three times
 * with new inputs before each start, completed in reverse order, each giving what its blocking
 * form gives for that start's inputs. Values are {@code 100000 * (start + 1) + 1000 * source + index},
 * so a result of an earlier start, or a block in the wrong place, names itself.
 */
final class PersistentCollectiveRules {
    private static final int STARTS = 3;
    private static final int BLOCK = 3;
    private static final String[] NAMES = {"gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "alltoall",
        "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block", "scan", "exscan"};

    private PersistentCollectiveRules() {
    }

    static List<Rule> rules() {
        return List.of(messaging(COLL, 13, REQUIRED, "persistentCollectivesOfEveryForm",
                "Every persistent collective (barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v,w), reduce, allreduce,"
                        + " reduce_scatter(_block), scan, exscan), made once and started together three times with new inputs, gives"
                        + " at each start what its blocking form gives for that start's inputs.",
                List.of(standard("§6.13 persistent collective operations"), mpich("coll/p_allgather.c"), mpich("coll/p_allgatherv.c"),
                        mpich("coll/p_alltoall.c")),
                PersistentCollectiveRules::everyForm));
    }

    /** The buffers of one rank: the persistent operations' inputs and outputs, and the blocking forms' outputs. */
    private static final class Buffers {
        final int p;
        final int me;
        final long[] counts;
        final long[] displs;
        final long[] byteDispls;
        final Datatype[] types;
        final long total;
        final long[] mine = new long[BLOCK];
        final long[] bcast = new long[BLOCK];
        final long[] all;
        final long[] uneven;
        final long[] myAlltoall;
        final long[] reduceScatterIn;
        final long[][] got;

        Buffers(int p, int me) {
            this.p = p;
            this.me = me;
            counts = new long[p];
            displs = new long[p];
            byteDispls = new long[p];
            types = new Datatype[p];
            Arrays.fill(types, Datatype.LONG);
            long sum = 0;
            for (int r = 0; r < p; r++) {
                counts[r] = r + 1;
                displs[r] = sum;
                byteDispls[r] = (long) r * BLOCK * Long.BYTES;
                sum += counts[r];
            }
            total = sum;
            all = new long[BLOCK * p];
            uneven = new long[(int) total];
            myAlltoall = new long[BLOCK * p];
            reduceScatterIn = new long[(int) total];
            got = outputs();
        }

        long[][] outputs() {
            long[][] out = new long[NAMES.length][];
            for (int i = 0; i < out.length; i++) {
                out[i] = new long[(int) Math.max(BLOCK * p, total)];
            }
            return out;
        }

        /** The inputs of start {@code k}, written into the buffers the persistent operations were made over. */
        void fill(int k) {
            long base = 100_000L * (k + 1);
            for (int i = 0; i < BLOCK; i++) {
                mine[i] = base + 1000L * me + i;
                bcast[i] = me == 0 ? base + i : -1;
            }
            for (int r = 0; r < p; r++) {
                for (int i = 0; i < BLOCK; i++) {
                    all[r * BLOCK + i] = base + 1000L * r + i;
                    myAlltoall[r * BLOCK + i] = base + 1000L * me + 10 * r + i;
                }
            }
            for (int i = 0; i < total; i++) {
                uneven[i] = base + 1000L * me + i;
                reduceScatterIn[i] = base + 1000L * me + i;
            }
            for (long[] g : got) {
                Arrays.fill(g, -1);
            }
        }

        PersistentRequest[] make(Communicator w) {
            int last = p - 1;
            return new PersistentRequest[] {
                w.barrierInit(),
                w.bcastInit(seg(bcast), BLOCK, Datatype.LONG, 0),
                w.gatherInit(seg(mine), BLOCK, Datatype.LONG, seg(got[0]), 0),
                w.gathervInit(seg(uneven), counts[me], Datatype.LONG, seg(got[1]), counts, displs, last),
                w.scatterInit(seg(all), BLOCK, Datatype.LONG, seg(got[2]), last),
                w.scattervInit(seg(uneven), counts, displs, Datatype.LONG, seg(got[3]), counts[me], 0),
                w.allgatherInit(seg(mine), BLOCK, Datatype.LONG, seg(got[4])),
                w.allgathervInit(seg(uneven), counts[me], Datatype.LONG, seg(got[5]), counts, displs),
                w.alltoallInit(seg(myAlltoall), BLOCK, Datatype.LONG, seg(got[6])),
                w.alltoallvInit(seg(myAlltoall), evenCounts(), evenDispls(), Datatype.LONG, seg(got[7]), evenCounts(), evenDispls()),
                w.alltoallwInit(seg(myAlltoall), evenCounts(), byteDispls, types, seg(got[8]), evenCounts(), byteDispls, types),
                w.reduceInit(seg(mine), seg(got[9]), BLOCK, Datatype.LONG, Op.SUM, last),
                w.allreduceInit(seg(mine), seg(got[10]), BLOCK, Datatype.LONG, Op.SUM),
                w.reduceScatterInit(seg(reduceScatterIn), seg(got[11]), counts, Datatype.LONG, Op.SUM),
                w.reduceScatterBlockInit(seg(all), seg(got[12]), BLOCK, Datatype.LONG, Op.SUM),
                w.scanInit(seg(mine), seg(got[13]), BLOCK, Datatype.LONG, Op.SUM),
                w.exscanInit(seg(mine), seg(got[14]), BLOCK, Datatype.LONG, Op.SUM)};
        }

        /** What the blocking forms give for the inputs now in the buffers. */
        long[][] blocking(Communicator w) {
            int last = p - 1;
            long[][] want = outputs();
            for (long[] x : want) {
                Arrays.fill(x, -1);
            }
            w.gather(seg(mine), BLOCK, Datatype.LONG, seg(want[0]), 0);
            w.gatherv(seg(uneven), counts[me], Datatype.LONG, seg(want[1]), counts, displs, last);
            w.scatter(seg(all), BLOCK, Datatype.LONG, seg(want[2]), last);
            w.scatterv(seg(uneven), counts, displs, Datatype.LONG, seg(want[3]), counts[me], 0);
            w.allgather(seg(mine), BLOCK, Datatype.LONG, seg(want[4]));
            w.allgatherv(seg(uneven), counts[me], Datatype.LONG, seg(want[5]), counts, displs);
            w.alltoall(seg(myAlltoall), BLOCK, Datatype.LONG, seg(want[6]));
            w.alltoallv(seg(myAlltoall), evenCounts(), evenDispls(), Datatype.LONG, seg(want[7]), evenCounts(), evenDispls());
            w.alltoallw(seg(myAlltoall), evenCounts(), byteDispls, types, seg(want[8]), evenCounts(), byteDispls, types);
            w.reduce(seg(mine), seg(want[9]), BLOCK, Datatype.LONG, Op.SUM, last);
            w.allreduce(seg(mine), seg(want[10]), BLOCK, Datatype.LONG, Op.SUM);
            w.reduceScatter(seg(reduceScatterIn), seg(want[11]), counts, Datatype.LONG, Op.SUM);
            w.reduceScatterBlock(seg(all), seg(want[12]), BLOCK, Datatype.LONG, Op.SUM);
            w.scan(seg(mine), seg(want[13]), BLOCK, Datatype.LONG, Op.SUM);
            w.exscan(seg(mine), seg(want[14]), BLOCK, Datatype.LONG, Op.SUM);
            return want;
        }

        /** Whether result {@code i} is defined at this rank (MPI: a root's outputs at the root only, exscan not at rank 0). */
        boolean defined(int i) {
            return switch (NAMES[i]) {
                case "gather" -> me == 0;
                case "gatherv", "reduce" -> me == p - 1;
                case "exscan" -> me != 0;
                default -> true;
            };
        }

        private long[] evenCounts() {
            long[] c = new long[p];
            Arrays.fill(c, BLOCK);
            return c;
        }

        private long[] evenDispls() {
            long[] d = new long[p];
            for (int r = 0; r < p; r++) {
                d[r] = (long) r * BLOCK;
            }
            return d;
        }
    }

    private static MemorySegment seg(long[] a) {
        return MemorySegment.ofArray(a);
    }

    private static void everyForm(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "every persistent collective, started three times", rank -> {
                Communicator w = rank.comm();
                Buffers b = new Buffers(w.size(), w.rank());
                PersistentRequest[] requests = b.make(w);
                for (int k = 0; k < STARTS; k++) {
                    b.fill(k);
                    PersistentRequest.startAll(requests);
                    for (int i = requests.length - 1; i >= 0; i--) {
                        requests[i].await();
                    }
                    for (int i = 0; i < BLOCK; i++) {
                        checkEquals(100_000L * (k + 1) + i, b.bcast[i], "persistent bcast, start " + k + ", element " + i + " on " + b.me);
                    }
                    long[][] want = b.blocking(w);
                    for (int i = 0; i < NAMES.length; i++) {
                        if (b.defined(i)) {
                            checkEquals(Arrays.toString(want[i]), Arrays.toString(b.got[i]),
                                    "persistent " + NAMES[i] + ", start " + k + ", on rank " + b.me);
                        }
                    }
                }
                for (PersistentRequest r : requests) {
                    r.free();
                }
            });
        }
    }
}
