package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.TYPE;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.ibm;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * Derived datatypes through a provider (MPI 4.1 §5.1): messages of generated types reach the
 * right bytes and leave the gaps alone, partial and truncated receives count elements right,
 * collectives take derived types, and unusable types are typed errors. Types come from
 * {@link TypeCases}, simplest first, so the first failure reported is the smallest the rule found.
 */
final class DatatypeRules {
    private DatatypeRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(TYPE, 1, REQUIRED, "derivedTypesInPointToPoint",
                        "A message of generated derived types (vector, hvector, indexed, indexed block, struct, resized, subarray, nested)"
                                + " sent from one type and received into the same or into contiguous bytes carries the type map's bytes in order,"
                                + " leaves the gaps of the receive buffer alone, and its status counts elements of the type.",
                        List.of(standard("§5.1.11 use of general datatypes in communication"), mpich("datatype/contents.c"),
                                mpich("datatype/struct-pack.c"), ibm("datatype/vector")), DatatypeRules::derivedTypesInPointToPoint),
                messaging(TYPE, 2, REQUIRED, "partialAndTruncatedDerivedReceives",
                        "A message shorter than the receive's elements fills a prefix (count is UNDEFINED for a partial element, elements"
                                + " counts its basic elements); a longer one truncates with TRUNCATE and leaves the first elements in place.",
                        List.of(standard("§5.1.11 MPI_Get_elements"), mpich("datatype/get-elements.c")),
                        DatatypeRules::partialAndTruncated),
                messaging(TYPE, 3, REQUIRED, "derivedTypesInCollectives",
                        "bcast, gather, scatterv, allgather, alltoall, alltoallw, allreduce and reduce_scatter_block of a column type"
                                + " (vector) give the elements the same collectives give over contiguous copies, and leave the gaps alone.",
                        List.of(standard("§6.1 collective communication: any datatype"), mpich("coll/coll13.c"), mpich("coll/alltoallw1.c")),
                        DatatypeRules::derivedTypesInCollectives),
                messaging(TYPE, 4, REQUIRED, "unusableDatatypesAreTypedErrors",
                        "A send or receive of an uncommitted or freed datatype fails with TYPE before anything is sent, and the"
                                + " communicator stays usable.",
                        List.of(standard("§5.1.9 commit and free"), mpich("errors/datatype/uncommitted.c")),
                        DatatypeRules::unusableTypesAreTypedErrors));
    }

    private static void pattern(MemorySegment s, int salt) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + salt * 7 + 3));
        }
    }

    private static void derivedTypesInPointToPoint(MessagingRuleContext c) {
        List<TypeCases.Case> cases = TypeCases.generated(c.random().nextLong(), 24);
        c.runClean(2, "derived types between two ranks", rank -> {
            Communicator w = rank.comm();
            for (int k = 0; k < cases.size(); k++) {
                TypeCases.Case tc = cases.get(k);
                Datatype t = tc.type();
                int count = 1 + k % 3;
                long span = tc.span(count);
                if (w.rank() == 0) {
                    MemorySegment out = MemorySegment.ofArray(new byte[(int) span]);
                    pattern(out, k);
                    w.send(out, count, t, 1, k);
                    w.send(out, count, t, 1, k);
                } else {
                    MemorySegment source = MemorySegment.ofArray(new byte[(int) span]);
                    pattern(source, k);
                    byte[] expected = tc.packed(source, count);
                    MemorySegment in = MemorySegment.ofArray(new byte[(int) span]);
                    in.fill((byte) 0x5A);
                    Status s = w.recv(in, count, t, 0, k);
                    checkEquals((long) count, s.count(t), "count of " + tc + " x " + count);
                    checkEquals(count * t.size(), s.byteCount(), "bytes of " + tc + " x " + count);
                    byte[] got = tc.packed(in, count);
                    check(java.util.Arrays.equals(expected, got), "received " + tc + " x " + count + " differs from the sent type map");
                    boolean[] data = tc.dataBytes(count, (int) span);
                    for (int i = 0; i < span; i++) {
                        if (!data[i]) {
                            checkEquals((byte) 0x5A, in.get(ValueLayout.JAVA_BYTE, i), "gap byte " + i + " of " + tc + " x " + count
                                    + " was written");
                        }
                    }
                    MemorySegment flat = MemorySegment.ofArray(new byte[expected.length]);
                    w.recv(flat, expected.length, Datatype.BYTE, 0, k);
                    check(java.util.Arrays.equals(expected, flat.toArray(ValueLayout.JAVA_BYTE)), tc + " x " + count
                            + " received as bytes is not its packed form");
                }
            }
        });
    }

    private static void partialAndTruncated(MessagingRuleContext c) {
        c.runClean(2, "partial and truncated receives of derived types", rank -> {
            Communicator w = rank.comm();
            Datatype triple = Datatype.vector(3, 1, 2, Datatype.INT).commit();
            if (w.rank() == 0) {
                w.send(new int[] {1, 2, 3, 4, 5}, 1, 1); // 5 ints: one whole triple and two of the next
                w.send(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 2); // three triples
            } else {
                int[] in = new int[12];
                java.util.Arrays.fill(in, -1);
                Status s = w.recv(MemorySegment.ofArray(in), 2, triple, 0, 1);
                checkEquals(Status.UNDEFINED, s.count(triple), "count of one triple and two of its ints");
                checkEquals(5L, s.elements(triple), "elements of one triple and two of its ints");
                // a triple's ints lie two apart and its extent is five ints: element 1 starts at int 5
                check(java.util.Arrays.equals(new int[] {1, -1, 2, -1, 3, 4, -1, 5, -1, -1, -1, -1}, in),
                        "a partial receive of two triples: " + java.util.Arrays.toString(in));
                java.util.Arrays.fill(in, -1);
                try {
                    w.recv(MemorySegment.ofArray(in), 2, triple, 0, 2);
                    throw new org.lockstep.conformance.RuleViolation("a message of three triples into two was not truncated");
                } catch (TruncationException e) {
                    checkEquals(24L, e.status().byteCount(), "bytes delivered by a truncated receive of two triples");
                }
                check(java.util.Arrays.equals(new int[] {1, -1, 2, -1, 3, 4, -1, 5, -1, 6, -1, -1}, in),
                        "a truncated receive leaves the first two triples: " + java.util.Arrays.toString(in));
            }
        });
    }

    private static void derivedTypesInCollectives(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 5)) {
            c.runClean(n, "collectives of a column type", rank -> {
                Communicator w = rank.comm();
                int p = w.size();
                int me = w.rank();
                int rows = 5;
                // a column of a rows x 2 matrix of longs; elements one row apart
                Datatype column = Datatype.vector(rows, 1, 2, Datatype.LONG).commit();
                Datatype cell = Datatype.resized(Datatype.LONG, 0, 16).commit(); // one long, then a gap
                // bcast
                long[] m = new long[2 * rows];
                for (int i = 0; i < rows; i++) {
                    m[2 * i] = me == 1 % p ? 100 + i : -1;
                    m[2 * i + 1] = 7;
                }
                w.bcast(MemorySegment.ofArray(m), 1, column, 1 % p);
                for (int i = 0; i < rows; i++) {
                    checkEquals(100L + i, m[2 * i], "bcast of a column, row " + i + " on rank " + me);
                    checkEquals(7L, m[2 * i + 1], "bcast of a column wrote the other column, row " + i + " on rank " + me);
                }
                // gather: one long per rank, received as cells (every other long)
                long[] gathered = new long[2 * p];
                java.util.Arrays.fill(gathered, -7);
                w.gather(MemorySegment.ofArray(new long[] {10L * me}), 1, Datatype.LONG, MemorySegment.ofArray(gathered), 0);
                if (me == 0) {
                    // the receive type is LONG: the blocks are consecutive
                    for (int r = 0; r < p; r++) {
                        checkEquals(10L * r, gathered[r], "gather of longs, block " + r);
                    }
                }
                long[] cells = new long[2 * p];
                java.util.Arrays.fill(cells, -7);
                long[] mineAsCell = {10L * me + 1, -99};
                w.allgather(MemorySegment.ofArray(mineAsCell), 1, cell, MemorySegment.ofArray(cells));
                for (int r = 0; r < p; r++) {
                    checkEquals(10L * r + 1, cells[2 * r], "allgather of cells, block " + r + " on rank " + me);
                    checkEquals(-7L, cells[2 * r + 1], "allgather of cells wrote a gap, block " + r + " on rank " + me);
                }
                // alltoall of cells: block j of rank i is 100 i + j
                long[] send = new long[2 * p];
                long[] recv = new long[2 * p];
                java.util.Arrays.fill(recv, -7);
                for (int j = 0; j < p; j++) {
                    send[2 * j] = 100L * me + j;
                }
                w.alltoall(MemorySegment.ofArray(send), 1, cell, MemorySegment.ofArray(recv));
                for (int i = 0; i < p; i++) {
                    checkEquals(100L * i + me, recv[2 * i], "alltoall of cells, block " + i + " on rank " + me);
                    checkEquals(-7L, recv[2 * i + 1], "alltoall of cells wrote a gap, block " + i + " on rank " + me);
                }
                // alltoallw: send cells, receive plain longs
                long[] wRecv = new long[p];
                long[] counts = new long[p];
                long[] sendDispl = new long[p];
                long[] recvDispl = new long[p];
                Datatype[] sendTypes = new Datatype[p];
                Datatype[] recvTypes = new Datatype[p];
                for (int j = 0; j < p; j++) {
                    counts[j] = 1;
                    sendDispl[j] = 16L * j;
                    recvDispl[j] = 8L * j;
                    sendTypes[j] = cell;
                    recvTypes[j] = Datatype.LONG;
                }
                w.alltoallw(MemorySegment.ofArray(send), counts, sendDispl, sendTypes, MemorySegment.ofArray(wRecv), counts, recvDispl,
                        recvTypes);
                for (int i = 0; i < p; i++) {
                    checkEquals(100L * i + me, wRecv[i], "alltoallw of cells into longs, block " + i + " on rank " + me);
                }
                // scatterv of columns: rank r gets column r % 2 of the root's rows x 2 matrix
                long[] src = new long[2 * rows];
                for (int i = 0; i < 2 * rows; i++) {
                    src[i] = 1000 + i;
                }
                Datatype col = Datatype.resized(column, 0, 8).commit(); // columns one long apart
                long[] sc = new long[p];
                long[] sd = new long[p];
                for (int r = 0; r < p; r++) {
                    sc[r] = 1;
                    sd[r] = r % 2;
                }
                long[] got = new long[2 * rows];
                java.util.Arrays.fill(got, -7);
                w.scatterv(me == 0 ? MemorySegment.ofArray(src) : null, sc, sd, col, MemorySegment.ofArray(got), 1, 0);
                for (int i = 0; i < rows; i++) {
                    checkEquals(1000L + 2 * i + me % 2, got[2 * i], "scatterv of columns, row " + i + " on rank " + me);
                    checkEquals(-7L, got[2 * i + 1], "scatterv of columns wrote the other column, row " + i + " on rank " + me);
                }
                // allreduce of a column of doubles
                double[] a = new double[2 * rows];
                double[] b = new double[2 * rows];
                java.util.Arrays.fill(b, -1);
                for (int i = 0; i < rows; i++) {
                    a[2 * i] = me + i;
                    a[2 * i + 1] = 1e9;
                }
                Datatype dcol = Datatype.vector(rows, 1, 2, Datatype.DOUBLE).commit();
                w.allreduce(MemorySegment.ofArray(a), MemorySegment.ofArray(b), 1, dcol, Op.SUM);
                for (int i = 0; i < rows; i++) {
                    checkEquals((double) (p * (p - 1) / 2 + p * i), b[2 * i], "allreduce of a column, row " + i + " on rank " + me);
                    checkEquals(-1.0, b[2 * i + 1], "allreduce of a column wrote the other column, row " + i + " on rank " + me);
                }
                // reduce_scatter_block of cells
                long[] rsIn = new long[2 * p];
                for (int j = 0; j < p; j++) {
                    rsIn[2 * j] = j + 1;
                }
                long[] rsOut = {-7, -7};
                w.reduceScatterBlock(MemorySegment.ofArray(rsIn), MemorySegment.ofArray(rsOut), 1, cell, Op.SUM);
                checkEquals((long) p * (me + 1), rsOut[0], "reduce_scatter_block of cells on rank " + me);
                checkEquals(-7L, rsOut[1], "reduce_scatter_block of cells wrote the gap on rank " + me);
            });
        }
    }

    private static void unusableTypesAreTypedErrors(MessagingRuleContext c) {
        c.runClean(2, "uncommitted and freed datatypes", rank -> {
            Communicator w = rank.comm();
            Datatype v = Datatype.vector(2, 1, 2, Datatype.INT);
            MemorySegment b = MemorySegment.ofArray(new int[8]);
            int peer = 1 - w.rank();
            expectError(ErrorClass.TYPE, "a send of an uncommitted vector", () -> w.send(b, 1, v, peer, 1));
            expectError(ErrorClass.TYPE, "a receive into an uncommitted vector", () -> w.irecv(b, 1, v, peer, 1));
            expectError(ErrorClass.TYPE, "a bcast of an uncommitted vector", () -> w.bcast(b, 1, v, 0));
            v.commit();
            v.free();
            expectError(ErrorClass.TYPE, "a send of a freed vector", () -> w.isend(b, 1, v, peer, 1));
            expectError(ErrorClass.TYPE, "an allreduce of a freed vector", () -> w.allreduce(b, MemorySegment.ofArray(new int[8]), 1, v,
                    Op.SUM));
            // nothing of the above was sent: the next message on the tag is this one
            Request r = w.irecv(b, 1, Datatype.INT, peer, 1);
            w.send(new int[] {40 + w.rank()}, peer, 1);
            r.await();
            checkEquals(40 + peer, b.get(ValueLayout.JAVA_INT, 0), "the first message after the rejected calls");
        });
    }
}
