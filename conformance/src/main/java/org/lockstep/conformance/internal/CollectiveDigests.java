package org.lockstep.conformance.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.conformance.PayloadPattern;

/**
 * One program that calls every collective of the API once or more, on inputs that depend only on
 * the rank and the call, and records what each call left in its receive buffer as one line per
 * call ({@code operation: digest}). Two providers whose collectives agree give every rank the same
 * lines. Buffers come from {@link Communicator#allocate}, so that a provider that keeps memory
 * elsewhere (an external-memory provider) keeps them too; every buffer is freed after its call.
 */
final class CollectiveDigests {
    private static final Datatype BYTE = Datatype.BYTE;
    private static final Datatype LONG = Datatype.LONG;
    private static final int LONGS = 96;

    private final Communicator w;
    private final int n;
    private final int me;
    private final List<String> lines = new ArrayList<>();
    private int call;

    private CollectiveDigests(Communicator w) {
        this.w = w;
        this.n = w.size();
        this.me = w.rank();
    }

    /** Runs the program on {@code w}'s rank; one line per call. */
    static List<String> of(Communicator w) {
        CollectiveDigests d = new CollectiveDigests(w);
        d.run();
        return d.lines;
    }

    private void run() {
        w.barrier();
        lines.add("barrier");
        for (int root = 0; root < n; root++) {
            bcast(root, 3000 + 17 * root);
        }
        gather(n - 1, 1000);
        gatherv(0);
        scatter(1 % n, 800);
        scatterv(n / 2);
        allgather(500);
        allgatherv();
        alltoall(700);
        alltoallv();
        reductions();
        split();
    }

    private long key(int rank, int peer) {
        return call * 1_000_003L + rank * 1_009L + peer;
    }

    private MemorySegment take(long bytes) {
        MemorySegment s = w.allocate(bytes);
        s.fill((byte) 0);
        return s;
    }

    private void record(String operation, MemorySegment result) {
        lines.add(String.format(Locale.ROOT, "%s: %d bytes, digest %016x", operation, result.byteSize(), digest(result)));
    }

    private static long digest(MemorySegment s) {
        long h = 0xcbf2_9ce4_8422_2325L;
        for (long i = 0; i < s.byteSize(); i++) {
            h = (h ^ (s.get(ValueLayout.JAVA_BYTE, i) & 0xff)) * 0x100_0000_01b3L;
        }
        return h;
    }

    private void bcast(int root, int bytes) {
        call++;
        MemorySegment b = take(bytes);
        if (me == root) {
            PayloadPattern.fill(b, key(root, 0), bytes);
        }
        w.bcast(b, bytes, BYTE, root);
        record("bcast from " + root, b);
        w.free(b);
    }

    private void gather(int root, int bytes) {
        call++;
        MemorySegment send = take(bytes);
        PayloadPattern.fill(send, key(me, root), bytes);
        MemorySegment recv = take((long) bytes * n);
        w.gather(send, bytes, BYTE, recv, root);
        record("gather to " + root, me == root ? recv : send);
        w.free(recv);
        w.free(send);
    }

    private void gatherv(int root) {
        call++;
        long[] counts = new long[n];
        long[] displs = new long[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            counts[i] = (i + 1) * 97L;
            displs[i] = total + 8L * i;
            total += counts[i];
        }
        total += 8L * n;
        MemorySegment send = take(counts[me]);
        PayloadPattern.fill(send, key(me, root), counts[me]);
        MemorySegment recv = take(total);
        w.gatherv(send, counts[me], BYTE, recv, counts, displs, root);
        record("gatherv to " + root, me == root ? recv : send);
        w.free(recv);
        w.free(send);
    }

    private void scatter(int root, int bytes) {
        call++;
        MemorySegment send = take((long) bytes * n);
        if (me == root) {
            PayloadPattern.fill(send, key(root, 1), send.byteSize());
        }
        MemorySegment recv = take(bytes);
        w.scatter(send, bytes, BYTE, recv, root);
        record("scatter from " + root, recv);
        w.free(recv);
        w.free(send);
    }

    private void scatterv(int root) {
        call++;
        long[] counts = new long[n];
        long[] displs = new long[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            counts[i] = i * 37L + 5;
            displs[i] = total;
            total += counts[i] + 3;
        }
        MemorySegment send = take(total);
        if (me == root) {
            PayloadPattern.fill(send, key(root, 2), total);
        }
        MemorySegment recv = take(counts[me]);
        w.scatterv(send, counts, displs, BYTE, recv, counts[me], root);
        record("scatterv from " + root, recv);
        w.free(recv);
        w.free(send);
    }

    private void allgather(int bytes) {
        call++;
        MemorySegment send = take(bytes);
        PayloadPattern.fill(send, key(me, 3), bytes);
        MemorySegment recv = take((long) bytes * n);
        w.allgather(send, bytes, BYTE, recv);
        record("allgather", recv);
        w.free(recv);
        w.free(send);
    }

    private void allgatherv() {
        call++;
        long[] counts = new long[n];
        long[] displs = new long[n];
        long total = 0;
        for (int i = n - 1; i >= 0; i--) {
            counts[i] = (i + 1) * 64L + 3;
            displs[i] = total;
            total += counts[i];
        }
        MemorySegment send = take(counts[me]);
        PayloadPattern.fill(send, key(me, 4), counts[me]);
        MemorySegment recv = take(total);
        w.allgatherv(send, counts[me], BYTE, recv, counts, displs);
        record("allgatherv", recv);
        w.free(recv);
        w.free(send);
    }

    private void alltoall(int bytes) {
        call++;
        MemorySegment send = take((long) bytes * n);
        for (int j = 0; j < n; j++) {
            PayloadPattern.fill(send.asSlice((long) j * bytes, bytes), key(me, j), bytes);
        }
        MemorySegment recv = take((long) bytes * n);
        w.alltoall(send, bytes, BYTE, recv);
        record("alltoall", recv);
        w.free(recv);
        w.free(send);
    }

    private static long alltoallvBytes(int from, int to) {
        return ((from * 7L + to * 3L) % 5) * 100 + 1;
    }

    private void alltoallv() {
        call++;
        long[] sendCounts = new long[n];
        long[] sendDispls = new long[n];
        long[] recvCounts = new long[n];
        long[] recvDispls = new long[n];
        long sendTotal = 0;
        long recvTotal = 0;
        for (int j = 0; j < n; j++) {
            sendCounts[j] = alltoallvBytes(me, j);
            sendDispls[j] = sendTotal;
            sendTotal += sendCounts[j] + 5;
            recvCounts[j] = alltoallvBytes(j, me);
        }
        // the receive side in reverse rank order, so that a provider that assumes ascending displacements is seen
        for (int j = n - 1; j >= 0; j--) {
            recvDispls[j] = recvTotal;
            recvTotal += recvCounts[j];
        }
        MemorySegment send = take(sendTotal);
        for (int j = 0; j < n; j++) {
            PayloadPattern.fill(send.asSlice(sendDispls[j], sendCounts[j]), key(me, j), sendCounts[j]);
        }
        MemorySegment recv = take(recvTotal);
        w.alltoallv(send, sendCounts, sendDispls, BYTE, recv, recvCounts, recvDispls);
        record("alltoallv", recv);
        w.free(recv);
        w.free(send);
    }

    private MemorySegment values(int salt) {
        MemorySegment v = take((long) LONGS * Long.BYTES);
        for (int i = 0; i < LONGS; i++) {
            v.setAtIndex(ValueLayout.JAVA_LONG, i, (me + 1L) * 1_000_003L * (i + salt) ^ (long) me << (i % 40));
        }
        return v;
    }

    private void reductions() {
        call++;
        MemorySegment in = values(1);
        MemorySegment out = take((long) LONGS * Long.BYTES);
        w.reduce(in, out, LONGS, LONG, Op.SUM, 0);
        record("reduce sum to 0", me == 0 ? out : in);
        out.fill((byte) 0);
        w.reduce(in, out, LONGS, LONG, CollectiveRules.FIRST, n - 1);
        record("reduce non-commutative to " + (n - 1), me == n - 1 ? out : in);
        out.fill((byte) 0);
        w.allreduce(in, out, LONGS, LONG, Op.SUM);
        record("allreduce sum", out);
        out.fill((byte) 0);
        w.allreduce(in, out, LONGS, LONG, Op.MAX);
        record("allreduce max", out);
        out.fill((byte) 0);
        w.scan(in, out, LONGS, LONG, Op.SUM);
        record("scan sum", out);
        out.fill((byte) 0);
        w.exscan(in, out, LONGS, LONG, Op.SUM);
        // rank 0's exscan result is undefined (MPI 4.1 §6.11.2)
        record("exscan sum", me == 0 ? in : out);
        w.free(out);
        w.free(in);
        call++;
        long[] counts = new long[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            counts[i] = i % 3 + 1;
            total += counts[i];
        }
        MemorySegment many = take(total * Long.BYTES);
        for (long i = 0; i < total; i++) {
            many.setAtIndex(ValueLayout.JAVA_LONG, i, (me + 3L) * (i + 7));
        }
        MemorySegment block = take(counts[me] * Long.BYTES);
        w.reduceScatter(many, block, counts, LONG, Op.SUM);
        record("reduce_scatter sum", block);
        w.free(block);
        w.free(many);
        MemorySegment pairs = take(2L * n * Long.BYTES);
        for (long i = 0; i < 2L * n; i++) {
            pairs.setAtIndex(ValueLayout.JAVA_LONG, i, (me + 5L) * (i + 11));
        }
        MemorySegment equal = take(2L * Long.BYTES);
        w.reduceScatterBlock(pairs, equal, 2, LONG, Op.SUM);
        record("reduce_scatter_block sum", equal);
        w.free(equal);
        w.free(pairs);
    }

    private void split() {
        call++;
        Communicator sub = w.split(me % 2, -me);
        try {
            MemorySegment ranks = take((long) sub.size() * Long.BYTES);
            MemorySegment mine = take(Long.BYTES);
            mine.set(ValueLayout.JAVA_LONG, 0, me * 1000L + sub.rank());
            sub.allgather(mine, 1, LONG, ranks);
            record("split by parity, keys reversed: size " + sub.size() + ", rank " + sub.rank() + ", allgather", ranks);
            w.free(mine);
            w.free(ranks);
        } finally {
            sub.close();
        }
    }
}
