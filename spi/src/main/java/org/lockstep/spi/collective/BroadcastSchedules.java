package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

/** Schedules of barrier and broadcast. */
final class BroadcastSchedules {
    private BroadcastSchedules() {
    }

    /**
     * Dissemination barrier (Hensgen, Finkel, Manber): in step k every rank signals rank + 2<sup>k</sup>
     * and waits for rank − 2<sup>k</sup>; after ⌈log₂ p⌉ steps every rank has heard, directly or not,
     * from every other. Any number of ranks.
     */
    static void barrierDissemination(Schedule s) {
        int p = s.channel().size();
        int r = s.channel().rank();
        int step = 0;
        for (int distance = 1; distance < p; distance <<= 1, step++) {
            s.recv(Math.floorMod(r - distance, p), Buffers.EMPTY, step);
            s.send((r + distance) % p, Buffers.EMPTY, step);
            s.endRound();
        }
    }

    /**
     * Binomial tree rooted at {@code root}: relative rank v receives from v − lowbit(v), then sends
     * to v + 2<sup>j</sup> for each 2<sup>j</sup> &lt; lowbit(v), largest subtree first.
     */
    static void bcastBinomial(Schedule s, MemorySegment data, int root) {
        int p = s.channel().size();
        int vr = relative(s.channel().rank(), root, p);
        int mask = 1;
        while (mask < p) {
            if ((vr & mask) != 0) {
                s.recv(absolute(vr - mask, root, p), data, 0);
                s.endRound();
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            if (vr + mask < p) {
                s.send(absolute(vr + mask, root, p), data, 0);
            }
        }
        s.endRound();
    }

    /**
     * Van de Geijn's long broadcast: the buffer is cut into p chunks (the last ones possibly
     * empty), scattered down a binomial tree so that relative rank v holds chunk v, then
     * allgathered around a ring of p − 1 steps. About 2n bytes cross each rank instead of n·log p.
     */
    static void bcastScatterRingAllgather(Schedule s, MemorySegment data, int root) {
        int p = s.channel().size();
        int vr = relative(s.channel().rank(), root, p);
        long n = data.byteSize();
        long chunk = (n + p - 1) / p;
        int mask = 1;
        while (mask < p) {
            if ((vr & mask) != 0) {
                s.recv(absolute(vr - mask, root, p), chunks(data, chunk, vr, Math.min(p, vr + mask)), 0);
                s.endRound();
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1) {
            int child = vr + mask;
            if (child < p) {
                s.send(absolute(child, root, p), chunks(data, chunk, child, Math.min(p, child + mask)), 0);
            }
        }
        s.endRound();
        // The root already holds everything and its buffer may be read-only: it receives into scratch.
        MemorySegment discard = vr == 0 ? s.scratch(chunk) : null;
        int right = absolute((vr + 1) % p, root, p);
        int left = absolute(Math.floorMod(vr - 1, p), root, p);
        for (int step = 0; step < p - 1; step++) {
            int outgoing = Math.floorMod(vr - step, p);
            int incoming = Math.floorMod(vr - step - 1, p);
            MemorySegment into = chunks(data, chunk, incoming, incoming + 1);
            if (discard != null) {
                into = Buffers.slice(discard, 0, into.byteSize());
            }
            s.recv(left, into, 1 + step);
            s.send(right, chunks(data, chunk, outgoing, outgoing + 1), 1 + step);
            s.endRound();
        }
    }

    /** The bytes of chunks [from, to) of {@code chunk} bytes each, clipped to the buffer. */
    private static MemorySegment chunks(MemorySegment data, long chunk, int from, int to) {
        long n = data.byteSize();
        long start = Math.min(n, from * chunk);
        long end = Math.min(n, to * chunk);
        return Buffers.slice(data, start, end - start);
    }

    static int relative(int rank, int root, int size) {
        return Math.floorMod(rank - root, size);
    }

    static int absolute(int relative, int root, int size) {
        return (relative + root) % size;
    }
}
