package org.lockstep.spi.collective;

import static org.lockstep.spi.collective.BroadcastSchedules.absolute;
import static org.lockstep.spi.collective.BroadcastSchedules.relative;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;

/**
 * Schedules of the collectives that move blocks without combining them: gather, scatter,
 * allgather, alltoall and their v-variants. Sizes here are in bytes; the engine converts.
 * {@link Communicator#IN_PLACE} arrives as given by the caller.
 */
final class DistributionSchedules {
    private DistributionSchedules() {
    }

    private static boolean inPlace(MemorySegment segment) {
        return segment == Communicator.IN_PLACE;
    }

    /** Size of the binomial subtree under relative rank {@code vr} (itself included). */
    private static int subtree(int vr, int p) {
        return vr == 0 ? p : Math.min(Integer.lowestOneBit(vr), p - vr);
    }

    // ---------------------------------------------------------------- gather

    /**
     * Binomial gather: relative rank v collects the blocks of its subtree [v, v + lowbit(v)) from
     * its children, in relative order, and sends them up in one message. log p steps; interior
     * ranks forward data, so it suits small blocks.
     */
    static void gatherBinomial(Schedule s, MemorySegment send, long block, MemorySegment recv, int root) {
        int p = s.channel().size();
        int r = s.channel().rank();
        int vr = relative(r, root, p);
        boolean ownInPlace = r == root && inPlace(send);
        MemorySegment own = ownInPlace ? Buffers.slice(recv, r * block, block) : Buffers.slice(send, 0, block);
        if (p == 1) {
            if (!ownInPlace) {
                s.copy(own, Buffers.slice(recv, 0, block));
            }
            return;
        }
        int size = subtree(vr, p);
        if (size == 1) {
            s.send(absolute(vr - Integer.lowestOneBit(vr), root, p), own, 0);
            return;
        }
        MemorySegment collected;
        if (r == root && root == 0) {
            collected = Buffers.slice(recv, 0, p * block);
        } else {
            collected = s.scratch(size * block);
        }
        if (!(ownInPlace && root == 0)) {
            s.copy(own, Buffers.slice(collected, 0, block));
        }
        int limit = vr == 0 ? p : Integer.lowestOneBit(vr);
        for (int mask = 1; mask < limit && vr + mask < p; mask <<= 1) {
            int child = vr + mask;
            int childSize = Math.min(mask, p - child);
            s.recv(absolute(child, root, p), Buffers.slice(collected, mask * block, childSize * block), 0);
        }
        s.endRound();
        if (r != root) {
            s.send(absolute(vr - Integer.lowestOneBit(vr), root, p), collected, 0);
        } else if (root != 0) {
            // relative block j belongs to rank (j + root) mod p
            s.copy(Buffers.slice(collected, 0, (p - root) * block), Buffers.slice(recv, root * block, (p - root) * block));
            s.copy(Buffers.slice(collected, (p - root) * block, root * block), Buffers.slice(recv, 0, root * block));
        }
    }

    /** Linear gather: every rank sends its block straight to the root, which posts all receives at once. */
    static void gatherLinear(Schedule s, MemorySegment send, long block, MemorySegment recv, int root) {
        int p = s.channel().size();
        int r = s.channel().rank();
        if (r != root) {
            s.send(root, Buffers.slice(send, 0, block), 0);
            return;
        }
        for (int i = 0; i < p; i++) {
            MemorySegment into = Buffers.slice(recv, i * block, block);
            if (i != root) {
                s.recv(i, into, 0);
            } else if (!inPlace(send)) {
                s.copy(Buffers.slice(send, 0, block), into);
            }
        }
    }

    /** Linear gatherv; counts and displacements in bytes. */
    static void gathervLinear(Schedule s, MemorySegment send, long sendBytes, MemorySegment recv, long[] recvBytes,
                              long[] displacements, int root) {
        int p = s.channel().size();
        int r = s.channel().rank();
        if (r != root) {
            s.send(root, Buffers.slice(send, 0, sendBytes), 0);
            return;
        }
        for (int i = 0; i < p; i++) {
            MemorySegment into = Buffers.slice(recv, displacements[i], recvBytes[i]);
            if (i != root) {
                s.recv(i, into, 0);
            } else if (!inPlace(send)) {
                s.copy(Buffers.slice(send, 0, sendBytes), into);
            }
        }
    }

    // ---------------------------------------------------------------- scatter

    /** Binomial scatter, the mirror of {@link #gatherBinomial}: subtrees' blocks go down in one message each. */
    static void scatterBinomial(Schedule s, MemorySegment send, long block, MemorySegment recv, int root) {
        int p = s.channel().size();
        int r = s.channel().rank();
        int vr = relative(r, root, p);
        if (r == root) {
            MemorySegment ordered;
            if (root == 0) {
                ordered = Buffers.slice(send, 0, p * block);
            } else {
                ordered = s.scratch(p * block);
                s.copy(Buffers.slice(send, root * block, (p - root) * block), Buffers.slice(ordered, 0, (p - root) * block));
                s.copy(Buffers.slice(send, 0, root * block), Buffers.slice(ordered, (p - root) * block, root * block));
            }
            for (int mask = Integer.highestOneBit(Math.max(1, p - 1)); mask > 0; mask >>= 1) {
                if (mask < p) {
                    int childSize = Math.min(mask, p - mask);
                    s.send(absolute(mask, root, p), Buffers.slice(ordered, mask * block, childSize * block), 0);
                }
            }
            if (!inPlace(recv)) {
                s.copy(Buffers.slice(send, root * block, block), Buffers.slice(recv, 0, block));
            }
            return;
        }
        int low = Integer.lowestOneBit(vr);
        int parent = absolute(vr - low, root, p);
        int size = subtree(vr, p);
        MemorySegment mine = Buffers.slice(recv, 0, block);
        if (size == 1) {
            s.recv(parent, mine, 0);
            return;
        }
        MemorySegment held = s.scratch(size * block);
        s.recv(parent, held, 0);
        s.endRound();
        for (int mask = low >> 1; mask > 0; mask >>= 1) {
            int child = vr + mask;
            if (child < p) {
                int childSize = Math.min(mask, p - child);
                s.send(absolute(child, root, p), Buffers.slice(held, mask * block, childSize * block), 0);
            }
        }
        s.copy(Buffers.slice(held, 0, block), mine);
    }

    /** Linear scatter: the root sends every block itself, all at once. */
    static void scatterLinear(Schedule s, MemorySegment send, long block, MemorySegment recv, int root) {
        int p = s.channel().size();
        int r = s.channel().rank();
        if (r != root) {
            s.recv(root, Buffers.slice(recv, 0, block), 0);
            return;
        }
        for (int i = 0; i < p; i++) {
            MemorySegment from = Buffers.slice(send, i * block, block);
            if (i != root) {
                s.send(i, from, 0);
            } else if (!inPlace(recv)) {
                s.copy(from, Buffers.slice(recv, 0, block));
            }
        }
    }

    /** Linear scatterv; counts and displacements in bytes. */
    static void scattervLinear(Schedule s, MemorySegment send, long[] sendBytes, long[] displacements,
                               MemorySegment recv, long recvBytes, int root) {
        int p = s.channel().size();
        int r = s.channel().rank();
        if (r != root) {
            s.recv(root, Buffers.slice(recv, 0, recvBytes), 0);
            return;
        }
        for (int i = 0; i < p; i++) {
            MemorySegment from = Buffers.slice(send, displacements[i], sendBytes[i]);
            if (i != root) {
                s.send(i, from, 0);
            } else if (!inPlace(recv)) {
                s.copy(from, Buffers.slice(recv, 0, recvBytes));
            }
        }
    }

    // ---------------------------------------------------------------- allgather

    /**
     * Bruck's allgather: in step k a rank sends the first min(2<sup>k</sup>, p − 2<sup>k</sup>) blocks
     * it has to rank − 2<sup>k</sup> and appends those of rank + 2<sup>k</sup>; ⌈log₂ p⌉ steps for
     * any p, then one local rotation.
     */
    static void allgatherBruck(Schedule s, MemorySegment send, long block, MemorySegment recv) {
        int p = s.channel().size();
        int r = s.channel().rank();
        MemorySegment own = inPlace(send) ? Buffers.slice(recv, r * block, block) : Buffers.slice(send, 0, block);
        if (p == 1) {
            if (!inPlace(send)) {
                s.copy(own, Buffers.slice(recv, 0, block));
            }
            return;
        }
        MemorySegment gathered = s.scratch(p * block);
        s.copy(own, Buffers.slice(gathered, 0, block));
        int step = 0;
        for (int distance = 1; distance < p; distance <<= 1, step++) {
            long blocks = Math.min(distance, p - distance);
            s.recv((r + distance) % p, Buffers.slice(gathered, distance * block, blocks * block), step);
            s.send(Math.floorMod(r - distance, p), Buffers.slice(gathered, 0, blocks * block), step);
            s.endRound();
        }
        // gathered block i is rank (r + i) mod p's
        s.copy(Buffers.slice(gathered, 0, (p - r) * block), Buffers.slice(recv, r * block, (p - r) * block));
        s.copy(Buffers.slice(gathered, (p - r) * block, r * block), Buffers.slice(recv, 0, r * block));
    }

    /** Ring allgather: p − 1 steps, each passing one block to the right; bandwidth-optimal. */
    static void allgatherRing(Schedule s, MemorySegment send, long block, MemorySegment recv) {
        int p = s.channel().size();
        long[] bytes = new long[p];
        long[] displacements = new long[p];
        for (int i = 0; i < p; i++) {
            bytes[i] = block;
            displacements[i] = i * block;
        }
        allgathervRing(s, send, block, recv, bytes, displacements);
    }

    /** Ring allgatherv; counts and displacements in bytes. */
    static void allgathervRing(Schedule s, MemorySegment send, long sendBytes, MemorySegment recv, long[] recvBytes,
                               long[] displacements) {
        int p = s.channel().size();
        int r = s.channel().rank();
        if (!inPlace(send)) {
            s.copy(Buffers.slice(send, 0, sendBytes), Buffers.slice(recv, displacements[r], recvBytes[r]));
        }
        int right = (r + 1) % p;
        int left = Math.floorMod(r - 1, p);
        for (int step = 0; step < p - 1; step++) {
            int outgoing = Math.floorMod(r - step, p);
            int incoming = Math.floorMod(r - step - 1, p);
            s.recv(left, Buffers.slice(recv, displacements[incoming], recvBytes[incoming]), step);
            s.send(right, Buffers.slice(recv, displacements[outgoing], recvBytes[outgoing]), step);
            s.endRound();
        }
    }

    // ---------------------------------------------------------------- alltoall

    /**
     * Bruck's alltoall for tiny blocks: rotate, then in step k send every block whose index has
     * bit k set to rank + 2<sup>k</sup> (packed in one message), then rotate back. ⌈log₂ p⌉ messages
     * per rank instead of p − 1, at the price of moving each block about (log₂ p)/2 times.
     */
    static void alltoallBruck(Schedule s, MemorySegment send, long block, MemorySegment recv) {
        int p = s.channel().size();
        int r = s.channel().rank();
        MemorySegment source = inPlace(send) ? recv : send;
        if (p == 1) {
            if (!inPlace(send)) {
                s.copy(Buffers.slice(source, 0, block), Buffers.slice(recv, 0, block));
            }
            return;
        }
        MemorySegment blocks = s.scratch(p * block);
        // blocks[i] is the block bound for rank (r + i) mod p
        s.copy(Buffers.slice(source, r * block, (p - r) * block), Buffers.slice(blocks, 0, (p - r) * block));
        s.copy(Buffers.slice(source, 0, r * block), Buffers.slice(blocks, (p - r) * block, r * block));
        MemorySegment outgoing = s.scratch(((p + 1) / 2) * block);
        MemorySegment incoming = s.scratch(((p + 1) / 2) * block);
        int step = 0;
        for (int distance = 1; distance < p; distance <<= 1, step++) {
            int packed = 0;
            for (int i = 0; i < p; i++) {
                if ((i & distance) != 0) {
                    s.copy(Buffers.slice(blocks, i * block, block), Buffers.slice(outgoing, packed * block, block));
                    packed++;
                }
            }
            s.recv(Math.floorMod(r - distance, p), Buffers.slice(incoming, 0, packed * block), step);
            s.send((r + distance) % p, Buffers.slice(outgoing, 0, packed * block), step);
            s.endRound();
            packed = 0;
            for (int i = 0; i < p; i++) {
                if ((i & distance) != 0) {
                    s.copy(Buffers.slice(incoming, packed * block, block), Buffers.slice(blocks, i * block, block));
                    packed++;
                }
            }
        }
        // now blocks[i] came from rank (r - i) mod p
        for (int i = 0; i < p; i++) {
            s.copy(Buffers.slice(blocks, i * block, block), Buffers.slice(recv, Math.floorMod(r - i, p) * block, block));
        }
    }

    /**
     * Alltoall by exchanges with rank + k and rank − k for k = 1 … p − 1: one round per k
     * ({@code pairwise}, one message in and out at a time) or all at once.
     */
    static void alltoallExchange(Schedule s, MemorySegment send, long block, MemorySegment recv, boolean pairwise) {
        int p = s.channel().size();
        long[] bytes = new long[p];
        long[] displacements = new long[p];
        for (int i = 0; i < p; i++) {
            bytes[i] = block;
            displacements[i] = i * block;
        }
        alltoallvExchange(s, send, bytes, displacements, recv, bytes, displacements, pairwise);
    }

    /**
     * Alltoallv by exchanges (see {@link #alltoallExchange}); counts and displacements in bytes.
     * Every message of a call has the same tag (a pair of ranks exchanges one message each way),
     * so ranks may choose pairwise or all-at-once independently.
     */
    static void alltoallvExchange(Schedule s, MemorySegment send, long[] sendBytes, long[] sendDisplacements,
                                  MemorySegment recv, long[] recvBytes, long[] recvDisplacements, boolean pairwise) {
        int p = s.channel().size();
        int r = s.channel().rank();
        MemorySegment source = send;
        long[] sourceBytes = sendBytes;
        long[] sourceDisplacements = sendDisplacements;
        if (inPlace(send)) {
            long extent = 0;
            for (int i = 0; i < p; i++) {
                extent = Math.max(extent, recvDisplacements[i] + recvBytes[i]);
            }
            source = s.scratch(extent);
            s.copy(Buffers.slice(recv, 0, extent), source);
            sourceBytes = recvBytes;
            sourceDisplacements = recvDisplacements;
        } else {
            s.copy(Buffers.slice(send, sendDisplacements[r], sendBytes[r]),
                    Buffers.slice(recv, recvDisplacements[r], recvBytes[r]));
        }
        for (int k = 1; k < p; k++) {
            int from = Math.floorMod(r - k, p);
            int to = (r + k) % p;
            s.recv(from, Buffers.slice(recv, recvDisplacements[from], recvBytes[from]), 0);
            s.send(to, Buffers.slice(source, sourceDisplacements[to], sourceBytes[to]), 0);
            if (pairwise) {
                s.endRound();
            }
        }
    }
}
