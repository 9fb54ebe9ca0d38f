package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Datatype;
import org.lockstep.spi.messaging.PackedBuffer;

/**
 * The blocks of a v-collective's buffer (block i: {@code counts[i]} elements of a datatype at
 * {@code displacements[i]} extents) as packed bytes, for engines that move bytes: for a
 * contiguous type the buffer itself with byte counts and displacements; otherwise a private copy
 * holding the blocks one after the other, unpacked into their places afterwards.
 */
final class PackedBlocks {
    final MemorySegment segment;
    final long[] byteCounts;
    final long[] byteDisplacements;
    private final MemorySegment user;
    private final long[] counts;
    private final long[] displacements;
    private final Datatype type;

    private PackedBlocks(MemorySegment user, long[] counts, long[] displacements, Datatype type, boolean read) {
        this.user = user;
        this.counts = counts;
        this.displacements = displacements;
        this.type = type;
        int n = counts.length;
        byteCounts = new long[n];
        byteDisplacements = new long[n];
        long size = type.size();
        if (type.isContiguous()) {
            for (int i = 0; i < n; i++) {
                byteCounts[i] = counts[i] * size;
                byteDisplacements[i] = displacements[i] * size;
            }
            segment = user;
            return;
        }
        long at = 0;
        for (int i = 0; i < n; i++) {
            byteCounts[i] = counts[i] * size;
            byteDisplacements[i] = at;
            at += byteCounts[i];
        }
        segment = PackedBuffer.scratch(at);
        if (read) {
            for (int i = 0; i < n; i++) {
                if (counts[i] > 0) {
                    type.packAll(block(i), counts[i], segment.asSlice(byteDisplacements[i], byteCounts[i]));
                }
            }
        }
    }

    /** Checked blocks whose data the collective reads ({@code read}) or only writes. */
    static PackedBlocks of(MemorySegment user, long[] counts, long[] displacements, Datatype type, boolean read) {
        return new PackedBlocks(user, counts, displacements, type, read);
    }

    private MemorySegment block(int i) {
        return user.asSlice(displacements[i] * type.extent());
    }

    /** Copies every block of a private copy back into its place. */
    void unpack() {
        if (segment == user) {
            return;
        }
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                type.unpackPartial(segment, byteDisplacements[i], block(i), counts[i], byteCounts[i]);
            }
        }
    }
}
