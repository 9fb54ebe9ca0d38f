package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.spi.messaging.PackedBuffer;

/**
 * The per-peer blocks of an alltoallw buffer — block i: {@code counts[i]} elements of
 * {@code types[i]} at byte displacement {@code displacements[i]} — checked, and laid out packed
 * one after the other ({@link #byteOffsets}) for an alltoallv of bytes.
 */
final class TypedBlocks {
    final long[] byteCounts;
    final long[] byteOffsets;
    private final MemorySegment buffer;
    private final long[] counts;
    private final long[] displacements;
    private final Datatype[] types;
    private final long total;

    private TypedBlocks(MemorySegment buffer, long[] counts, long[] displacements, Datatype[] types) {
        this.buffer = buffer;
        this.counts = counts;
        this.displacements = displacements;
        this.types = types;
        byteCounts = new long[counts.length];
        byteOffsets = new long[counts.length];
        long at = 0;
        for (int i = 0; i < counts.length; i++) {
            byteCounts[i] = types[i].byteLength(counts[i]);
            byteOffsets[i] = at;
            at = Math.addExact(at, byteCounts[i]);
        }
        total = at;
    }

    /** Checks the arguments of one side of an alltoallw among {@code size} ranks. */
    static TypedBlocks of(int size, MemorySegment buffer, long[] counts, long[] displacements, Datatype[] types,
                          boolean written, String what) {
        CollectiveArguments.checkCounts(counts, size, what + " counts");
        if (displacements == null || displacements.length != size || types == null || types.length != size) {
            throw new LockstepException(ErrorClass.ARG, what + ": displacements and types must have " + size + " entries");
        }
        long reach = 0;
        for (int i = 0; i < size; i++) {
            Datatype.checkUsable(types[i]);
            if (counts[i] == 0) {
                continue;
            }
            if (displacements[i] < 0) {
                throw new LockstepException(ErrorClass.BUFFER, what + " displacement [" + i + "] = " + displacements[i] + " is negative");
            }
            reach = Math.max(reach, Math.addExact(displacements[i], types[i].span(counts[i])));
        }
        if (reach > 0 && (buffer == null || buffer.byteSize() < reach)) {
            throw new LockstepException(ErrorClass.BUFFER, what + " buffer has " + (buffer == null ? "no" : buffer.byteSize())
                    + " bytes but its blocks reach " + reach);
        }
        if (written && reach > 0 && buffer.isReadOnly()) {
            throw new LockstepException(ErrorClass.BUFFER, what + " buffer is read-only but is written");
        }
        return new TypedBlocks(buffer, counts, displacements, types);
    }

    /** A rank's block to itself must have as many bytes on both sides. */
    static void checkOwnBlock(TypedBlocks send, TypedBlocks recv, int rank) {
        if (send.byteCounts[rank] != recv.byteCounts[rank]) {
            throw new LockstepException(ErrorClass.COUNT, "alltoallw: this rank sends itself " + send.byteCounts[rank]
                    + " bytes but receives " + recv.byteCounts[rank]);
        }
    }

    /** Fresh memory for every block, packed. */
    MemorySegment packed() {
        return PackedBuffer.scratch(total);
    }

    void packInto(MemorySegment packed) {
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                types[i].packAll(buffer.asSlice(displacements[i]), counts[i], packed.asSlice(byteOffsets[i], byteCounts[i]));
            }
        }
    }

    /** Whether every block's datatype is contiguous, so that the blocks can travel from (or land in) the buffer itself. */
    boolean contiguous() {
        for (Datatype t : types) {
            if (!t.isContiguous()) {
                return false;
            }
        }
        return true;
    }

    /** Block {@code i} in the user's buffer, as bytes (for a contiguous datatype). */
    MemorySegment userBlock(int i) {
        return Buffers.slice(buffer, displacements[i], byteCounts[i]);
    }

    /** Block {@code i} of {@code packed} into its place in the user's buffer. */
    void unpackBlock(MemorySegment packed, int i) {
        if (counts[i] > 0) {
            types[i].unpackPartial(packed, byteOffsets[i], buffer.asSlice(displacements[i]), counts[i], byteCounts[i]);
        }
    }

    void unpackFrom(MemorySegment packed) {
        for (int i = 0; i < counts.length; i++) {
            unpackBlock(packed, i);
        }
    }
}
