package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.DataMover;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.IoActor;
import org.lockstep.embsp.sim.Location;

/**
 * Writes one message that arrives from another real processor in frames, in order, into its
 * place — a VP's context (memory or disk) or memory outside contexts — so that every write but
 * the last ends on a block boundary of the context: the bytes past the last boundary wait (at
 * most B of them) for the next frame. So frame edges never cost a read-modify-write; only the
 * message's own unaligned ends go to the boundary-block cache, as with a local delivery.
 * Used by the network agent only.
 */
final class AlignedWriter {
    private final Location target;
    private final long block;
    private final BoundaryCache cache;
    private byte[] carry;
    private int carried;
    private long written;

    AlignedWriter(Location target, long block, BoundaryCache cache) {
        this.target = target;
        this.block = block;
        this.cache = cache;
    }

    long length() {
        return target.length();
    }

    boolean complete() {
        return written + carried == target.length() && carried == 0;
    }

    /**
     * Takes the next {@code payload} bytes of the message (which start at {@code offset}); writes
     * what can be written aligned through {@code scratch} (at least one frame and one block long).
     *
     * @return bytes of the message that are now in place
     */
    long accept(long offset, MemorySegment payload, MemorySegment scratch, DataMover mover, IoActor actor, Deliveries inFlight) {
        if (offset != written + carried || offset + payload.byteSize() > target.length()) {
            throw new IllegalStateException("frame at " + offset + " of " + payload.byteSize() + " bytes does not continue a message of "
                    + target.length() + " bytes at " + (written + carried));
        }
        long end = offset + payload.byteSize();
        MemorySegment data;
        if (carried > 0) {
            MemorySegment.copy(MemorySegment.ofArray(carry), 0, scratch, 0, carried);
            MemorySegment.copy(payload, 0, scratch, carried, payload.byteSize());
            data = scratch.asSlice(0, carried + payload.byteSize());
        } else {
            data = payload;
        }
        long upTo = data.byteSize();
        if (end < target.length() && !target.isExternal()) {
            long absoluteEnd = target.offset() + end;
            long aligned = Math.floorDiv(absoluteEnd, block) * block - (target.offset() + written);
            upTo = Math.max(0, aligned);
        }
        if (upTo > 0) {
            mover.write(actor, data.asSlice(0, upTo), target.slice(written, upTo), cache, inFlight);
        }
        int rest = (int) (data.byteSize() - upTo);
        if (rest > 0) {
            if (carry == null || carry.length < rest) {
                carry = new byte[(int) Math.max(rest, block)];
            }
            MemorySegment.copy(data, upTo, MemorySegment.ofArray(carry), 0, rest);
        }
        long before = written;
        written += upTo;
        carried = rest;
        return written - before;
    }
}
