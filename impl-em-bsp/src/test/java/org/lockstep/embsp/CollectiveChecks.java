package org.lockstep.embsp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/**
 * A program that runs every collective on odd sizes and offsets (so that messages straddle
 * blocks and sender and receiver alignments differ) and checks each result against a sequential
 * reference computed from the same deterministic data. Any wrong byte throws an
 * {@link AssertionError} naming the call, rank and position.
 */
final class CollectiveChecks {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private CollectiveChecks() {
    }

    static byte pattern(int seed, long i) {
        return (byte) (seed * 131 + i * 7 + (i >>> 9) * 3 + 1);
    }

    static void fill(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, pattern(seed, i));
        }
    }

    static void expect(MemorySegment s, long offset, long length, int seed, String what) {
        for (long i = 0; i < length; i++) {
            byte got = s.get(ValueLayout.JAVA_BYTE, offset + i);
            byte want = pattern(seed, i);
            if (got != want) {
                throw new AssertionError(what + ": byte " + i + " of " + length + " is " + got + ", expected " + want);
            }
        }
    }

    static void expectLong(long got, long want, String what) {
        if (got != want) {
            throw new AssertionError(what + ": " + got + ", expected " + want);
        }
    }

    /** Runs every check on {@code w}. */
    static void run(Communicator w) {
        MemorySegment pad = w.allocate(333);
        bcast(w);
        gatherAndScatter(w);
        allgather(w);
        alltoall(w);
        reductions(w);
        prefixes(w);
        inPlace(w);
        communicators(w);
        w.barrier();
        w.free(pad);
    }

    static void bcast(Communicator w) {
        int r = w.rank();
        for (int root : new int[] {0, w.size() - 1}) {
            MemorySegment buf = w.allocate(5000);
            if (r == root) {
                fill(buf, 1000 + root);
            } else {
                buf.fill((byte) 0);
            }
            w.bcast(buf, 5000, Datatype.BYTE, root);
            expect(buf, 0, 5000, 1000 + root, "bcast from " + root + " at rank " + r);
            w.free(buf);
        }
    }

    static long[] counts(int n, long base, long step) {
        long[] c = new long[n];
        for (int i = 0; i < n; i++) {
            c[i] = base + step * i;
        }
        return c;
    }

    static long[] displacements(long[] counts, long gap) {
        long[] d = new long[counts.length];
        long at = 0;
        for (int i = 0; i < counts.length; i++) {
            d[i] = at;
            at += counts[i] + gap;
        }
        return d;
    }

    static long extent(long[] counts, long[] displs) {
        long e = 0;
        for (int i = 0; i < counts.length; i++) {
            e = Math.max(e, counts[i] + displs[i]);
        }
        return e;
    }

    static void gatherAndScatter(Communicator w) {
        int n = w.size();
        int r = w.rank();
        int root = n / 2;
        long[] c = counts(n, 700, 977);
        long[] d = displacements(c, 13);
        MemorySegment mine = w.allocate(c[r]);
        fill(mine, 2000 + r);
        MemorySegment all = r == root ? w.allocate(extent(c, d)) : null;
        w.gatherv(mine, c[r], Datatype.BYTE, all, c, d, root);
        if (r == root) {
            for (int i = 0; i < n; i++) {
                expect(all, d[i], c[i], 2000 + i, "gatherv block " + i);
            }
        }
        long same = 1234;
        MemorySegment one = w.allocate(same);
        fill(one, 2100 + r);
        MemorySegment many = r == 0 ? w.allocate(same * n) : null;
        w.gather(one, same, Datatype.BYTE, many, 0);
        if (r == 0) {
            for (int i = 0; i < n; i++) {
                expect(many, i * same, same, 2100 + i, "gather block " + i);
            }
        }
        // scatterv from the root: block i carries seed 3000 + i
        MemorySegment source = r == root ? w.allocate(extent(c, d)) : null;
        if (r == root) {
            for (int i = 0; i < n; i++) {
                fill(source.asSlice(d[i], c[i]), 3000 + i);
            }
        }
        MemorySegment got = w.allocate(c[r]);
        got.fill((byte) 0);
        w.scatterv(source, c, d, Datatype.BYTE, got, c[r], root);
        expect(got, 0, c[r], 3000 + r, "scatterv at rank " + r);
        MemorySegment piece = w.allocate(same);
        MemorySegment whole = r == n - 1 ? w.allocate(same * n) : null;
        if (whole != null) {
            for (int i = 0; i < n; i++) {
                fill(whole.asSlice(i * same, same), 3100 + i);
            }
        }
        w.scatter(whole, same, Datatype.BYTE, piece, n - 1);
        expect(piece, 0, same, 3100 + r, "scatter at rank " + r);
        for (MemorySegment s : new MemorySegment[] {mine, all, one, many, source, got, piece, whole}) {
            if (s != null) {
                w.free(s);
            }
        }
    }

    static void allgather(Communicator w) {
        int n = w.size();
        int r = w.rank();
        long[] c = counts(n, 1500, 1313);
        long[] d = displacements(c, 29);
        MemorySegment mine = w.allocate(c[r]);
        fill(mine, 4000 + r);
        MemorySegment all = w.allocate(extent(c, d));
        all.fill((byte) 0);
        w.allgatherv(mine, c[r], Datatype.BYTE, all, c, d);
        for (int i = 0; i < n; i++) {
            expect(all, d[i], c[i], 4000 + i, "allgatherv block " + i + " at rank " + r);
        }
        MemorySegment one = w.allocate(777);
        fill(one, 4100 + r);
        MemorySegment many = w.allocate(777L * n);
        w.allgather(one, 777, Datatype.BYTE, many);
        for (int i = 0; i < n; i++) {
            expect(many, i * 777L, 777, 4100 + i, "allgather block " + i + " at rank " + r);
        }
        w.free(mine);
        w.free(all);
        w.free(one);
        w.free(many);
    }

    /** Bytes rank i sends rank j in the alltoallv check (some zero). */
    static long message(int i, int j) {
        return ((i * 7L + j * 13L) % 5) * 1531 + (i == j ? 17 : 0);
    }

    static int seed(int i, int j) {
        return 5000 + i * 97 + j;
    }

    static void alltoall(Communicator w) {
        int n = w.size();
        int r = w.rank();
        long[] sc = new long[n];
        long[] rc = new long[n];
        for (int j = 0; j < n; j++) {
            sc[j] = message(r, j);
            rc[j] = message(j, r);
        }
        long[] sd = displacements(sc, 5);
        // receive blocks in reverse order, so that sender and receiver offsets differ
        long[] rd = new long[n];
        long at = 3;
        for (int j = n - 1; j >= 0; j--) {
            rd[j] = at;
            at += rc[j] + 11;
        }
        MemorySegment send = w.allocate(extent(sc, sd));
        for (int j = 0; j < n; j++) {
            fill(send.asSlice(sd[j], sc[j]), seed(r, j));
        }
        MemorySegment recv = w.allocate(extent(rc, rd));
        recv.fill((byte) 0);
        w.alltoallv(send, sc, sd, Datatype.BYTE, recv, rc, rd);
        for (int j = 0; j < n; j++) {
            expect(recv, rd[j], rc[j], seed(j, r), "alltoallv from " + j + " at rank " + r);
        }
        // uniform alltoall of longs
        int per = 700;
        MemorySegment s2 = w.allocate(8L * per * n);
        MemorySegment r2 = w.allocate(8L * per * n);
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < per; k++) {
                s2.setAtIndex(ValueLayout.JAVA_LONG, (long) j * per + k, ((long) r << 40) | ((long) j << 20) | k);
            }
        }
        w.alltoall(s2, per, Datatype.LONG, r2);
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < per; k++) {
                expectLong(r2.getAtIndex(ValueLayout.JAVA_LONG, (long) j * per + k), ((long) j << 40) | ((long) r << 20) | k,
                        "alltoall long " + k + " from " + j + " at rank " + r);
            }
        }
        // the same with Java heap arrays: buffers outside the contexts
        long[] heapSend = new long[per * n];
        long[] heapRecv = new long[per * n];
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < per; k++) {
                heapSend[j * per + k] = r * 1_000_000L + j * 1000L + k;
            }
        }
        w.alltoall(MemorySegment.ofArray(heapSend), per, Datatype.LONG, MemorySegment.ofArray(heapRecv));
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < per; k++) {
                expectLong(heapRecv[j * per + k], j * 1_000_000L + r * 1000L + k, "heap alltoall from " + j);
            }
        }
        w.free(send);
        w.free(recv);
        w.free(s2);
        w.free(r2);
    }

    /** A 2×2 matrix per 4 longs, row-major: element e of rank r. */
    static long[] matrix(int r, int e) {
        return new long[] {1 + e, r + 1, e * 3L + 2, r * 5L + e + 1};
    }

    static long[] times(long[] a, long[] b) {
        return new long[] {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    }

    /** inout = in · inout, per matrix: associative, not commutative. */
    static final Op MATRIX_PRODUCT = Op.create((in, inout, count, type) -> {
        for (long m = 0; m + 4 <= count; m += 4) {
            long[] a = new long[4];
            long[] b = new long[4];
            for (int i = 0; i < 4; i++) {
                a[i] = in.getAtIndex(LONG, m + i);
                b[i] = inout.getAtIndex(LONG, m + i);
            }
            long[] p = times(a, b);
            for (int i = 0; i < 4; i++) {
                inout.setAtIndex(LONG, m + i, p[i]);
            }
        }
    }, false);

    static void setMatrices(MemorySegment s, int r, int matrices) {
        for (int e = 0; e < matrices; e++) {
            long[] m = matrix(r, e);
            for (int i = 0; i < 4; i++) {
                s.setAtIndex(LONG, e * 4L + i, m[i]);
            }
        }
    }

    /** The product of ranks [from, to] of element e. */
    static long[] product(int from, int to, int e) {
        long[] p = {1, 0, 0, 1};
        for (int q = from; q <= to; q++) {
            p = times(p, matrix(q, e));
        }
        return p;
    }

    static void expectMatrices(MemorySegment s, int matrices, int from, int to, String what) {
        for (int e = 0; e < matrices; e++) {
            long[] want = product(from, to, e);
            for (int i = 0; i < 4; i++) {
                expectLong(s.getAtIndex(LONG, e * 4L + i), want[i], what + " matrix " + e + " entry " + i);
            }
        }
    }

    static void reductions(Communicator w) {
        int n = w.size();
        int r = w.rank();
        int count = 1003;
        MemorySegment x = w.allocate(8L * count);
        MemorySegment y = w.allocate(8L * count);
        for (int k = 0; k < count; k++) {
            x.setAtIndex(LONG, k, r * 100_000L + k);
        }
        long ranks = (long) n * (n - 1) / 2;
        w.allreduce(x, y, count, Datatype.LONG, Op.SUM);
        for (int k = 0; k < count; k++) {
            expectLong(y.getAtIndex(LONG, k), ranks * 100_000L + (long) n * k, "allreduce element " + k + " at rank " + r);
        }
        y.fill((byte) 0);
        w.reduce(x, y, count, Datatype.LONG, Op.MAX, n - 1);
        if (r == n - 1) {
            for (int k = 0; k < count; k++) {
                expectLong(y.getAtIndex(LONG, k), (n - 1) * 100_000L + k, "reduce MAX element " + k);
            }
        }
        int matrices = 150;
        MemorySegment m = w.allocate(32L * matrices);
        MemorySegment p = w.allocate(32L * matrices);
        setMatrices(m, r, matrices);
        w.allreduce(m, p, 4L * matrices, Datatype.LONG, MATRIX_PRODUCT);
        expectMatrices(p, matrices, 0, n - 1, "allreduce of matrix products at rank " + r);
        p.fill((byte) 0);
        w.reduce(m, p, 4L * matrices, Datatype.LONG, MATRIX_PRODUCT, 1 % n);
        if (r == 1 % n) {
            expectMatrices(p, matrices, 0, n - 1, "reduce of matrix products");
        }
        // reduce_scatter: rank i gets 100 + 31 i sums
        long[] rc = counts(n, 100, 31);
        long total = Arrays.stream(rc).sum();
        MemorySegment full = w.allocate(8 * total);
        for (long k = 0; k < total; k++) {
            full.setAtIndex(LONG, k, r + k * 3);
        }
        MemorySegment part = w.allocate(8 * rc[r]);
        w.reduceScatter(full, part, rc, Datatype.LONG, Op.SUM);
        long before = 0;
        for (int i = 0; i < r; i++) {
            before += rc[i];
        }
        for (int k = 0; k < rc[r]; k++) {
            expectLong(part.getAtIndex(LONG, k), ranks + (before + k) * 3 * n, "reduce_scatter element " + k + " at rank " + r);
        }
        MemorySegment blockOut = w.allocate(8 * 50);
        MemorySegment blockIn = w.allocate(8L * 50 * n);
        for (long k = 0; k < 50L * n; k++) {
            blockIn.setAtIndex(LONG, k, k ^ r);
        }
        w.reduceScatterBlock(blockIn, blockOut, 50, Datatype.LONG, Op.BXOR);
        for (int k = 0; k < 50; k++) {
            long want = 0;
            for (int q = 0; q < n; q++) {
                want ^= (r * 50L + k) ^ q;
            }
            expectLong(blockOut.getAtIndex(LONG, k), want, "reduce_scatter_block element " + k + " at rank " + r);
        }
        for (MemorySegment s : new MemorySegment[] {x, y, m, p, full, part, blockOut, blockIn}) {
            w.free(s);
        }
    }

    static void prefixes(Communicator w) {
        int r = w.rank();
        int count = 257;
        MemorySegment x = w.allocate(8L * count);
        MemorySegment y = w.allocate(8L * count);
        for (int k = 0; k < count; k++) {
            x.setAtIndex(LONG, k, (r + 1) * (long) (k + 1));
        }
        w.scan(x, y, count, Datatype.LONG, Op.SUM);
        long tri = (long) (r + 1) * (r + 2) / 2;
        for (int k = 0; k < count; k++) {
            expectLong(y.getAtIndex(LONG, k), tri * (k + 1), "scan element " + k + " at rank " + r);
        }
        y.fill((byte) 0x5A);
        w.exscan(x, y, count, Datatype.LONG, Op.SUM);
        if (r > 0) {
            long before = (long) r * (r + 1) / 2;
            for (int k = 0; k < count; k++) {
                expectLong(y.getAtIndex(LONG, k), before * (k + 1), "exscan element " + k + " at rank " + r);
            }
        } else {
            expectLong(y.getAtIndex(LONG, 0), 0x5A5A5A5A5A5A5A5AL, "exscan leaves rank 0's buffer alone");
        }
        int matrices = 40;
        MemorySegment m = w.allocate(32L * matrices);
        MemorySegment p = w.allocate(32L * matrices);
        setMatrices(m, r, matrices);
        w.scan(m, p, 4L * matrices, Datatype.LONG, MATRIX_PRODUCT);
        expectMatrices(p, matrices, 0, r, "scan of matrix products at rank " + r);
        w.exscan(m, p, 4L * matrices, Datatype.LONG, MATRIX_PRODUCT);
        if (r > 0) {
            expectMatrices(p, matrices, 0, r - 1, "exscan of matrix products at rank " + r);
        }
        w.free(x);
        w.free(y);
        w.free(m);
        w.free(p);
    }

    static void inPlace(Communicator w) {
        int n = w.size();
        int r = w.rank();
        int count = 300;
        MemorySegment x = w.allocate(8L * count);
        for (int k = 0; k < count; k++) {
            x.setAtIndex(LONG, k, r + k);
        }
        w.allreduce(Communicator.IN_PLACE, x, count, Datatype.LONG, Op.SUM);
        for (int k = 0; k < count; k++) {
            expectLong(x.getAtIndex(LONG, k), (long) n * (n - 1) / 2 + (long) n * k, "in-place allreduce at rank " + r);
        }
        long per = 1111;
        MemorySegment all = w.allocate(per * n);
        fill(all.asSlice(r * per, per), 6000 + r);
        w.allgather(Communicator.IN_PLACE, per, Datatype.BYTE, all);
        for (int i = 0; i < n; i++) {
            expect(all, i * per, per, 6000 + i, "in-place allgather block " + i + " at rank " + r);
        }
        MemorySegment a2a = w.allocate(per * n);
        for (int j = 0; j < n; j++) {
            fill(a2a.asSlice(j * per, per), seed(r, j));
        }
        w.alltoall(Communicator.IN_PLACE, per, Datatype.BYTE, a2a);
        for (int j = 0; j < n; j++) {
            expect(a2a, j * per, per, seed(j, r), "in-place alltoall from " + j + " at rank " + r);
        }
        // gather and scatter in place at the root
        MemorySegment mine = w.allocate(per);
        fill(mine, 6100 + r);
        MemorySegment rootAll = r == 0 ? w.allocate(per * n) : null;
        if (r == 0) {
            fill(rootAll.asSlice(0, per), 6100);
        }
        w.gather(r == 0 ? Communicator.IN_PLACE : mine, per, Datatype.BYTE, rootAll, 0);
        if (r == 0) {
            for (int i = 0; i < n; i++) {
                expect(rootAll, i * per, per, 6100 + i, "in-place gather block " + i);
            }
        }
        w.scatter(rootAll, per, Datatype.BYTE, r == 0 ? Communicator.IN_PLACE : mine, 0);
        expect(r == 0 ? rootAll : mine, 0, per, 6100 + r, "in-place scatter at rank " + r);
        w.free(x);
        w.free(all);
        w.free(a2a);
        w.free(mine);
        if (rootAll != null) {
            w.free(rootAll);
        }
    }

    static void communicators(Communicator w) {
        int r = w.rank();
        Communicator half = w.split(r % 2, -r);
        int size = half.size();
        int expectedSize = (w.size() + 1 - r % 2) / 2;
        expectLong(size, expectedSize, "split size at rank " + r);
        // keys are -rank: the highest world rank of a color is rank 0 of the new communicator
        int highest = (w.size() - 1) - ((w.size() - 1 - r % 2) % 2);
        expectLong(half.rank(), (highest - r) / 2, "split rank of world rank " + r);
        MemorySegment x = half.allocate(8);
        MemorySegment y = half.allocate(8);
        x.set(LONG, 0, r);
        half.allreduce(x, y, 1, Datatype.LONG, Op.SUM);
        long sum = 0;
        for (int q = r % 2; q < w.size(); q += 2) {
            sum += q;
        }
        expectLong(y.get(LONG, 0), sum, "allreduce on the split communicator at rank " + r);
        Communicator copy = half.dup();
        MemorySegment b = copy.allocate(2000);
        if (copy.rank() == 0) {
            fill(b, 7000 + r % 2);
        }
        copy.bcast(b, 2000, Datatype.BYTE, 0);
        expect(b, 0, 2000, 7000 + r % 2, "bcast on the dup at rank " + r);
        Communicator none = w.split(r == 0 ? Communicator.UNDEFINED : 1, 0);
        if ((r == 0) != (none == null)) {
            throw new AssertionError("split with UNDEFINED at rank " + r + " gave " + none);
        }
        copy.close();
        half.free(x);
        half.free(y);
        half.close();
        if (none != null) {
            none.close();
        }
    }
}
