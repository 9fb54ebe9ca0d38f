package org.lockstep.spi.messaging;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;

/**
 * The buffer of a communicator's buffered sends ({@code MPI_Bsend}): each message is copied into
 * a free range of the attached memory and sent from there; the range is free again once that send
 * has completed (looked at on the next buffered send, and by {@link #detach()}, which waits).
 * Ranges are taken first-fit in address order.
 */
public final class BufferedSends {
    /** A range of the attached buffer in use by one send. */
    private record InFlight(long offset, long length, Request send) {
    }

    /** Starts sending {@code bytes} bytes of {@code data} (a slice of the attached buffer). */
    @FunctionalInterface
    public interface Sender {
        Request send(MemorySegment data, long bytes);
    }

    private MemorySegment buffer;
    /** In address order. */
    private final List<InFlight> inFlight = new ArrayList<>();

    public void attach(MemorySegment memory) {
        if (memory == null) {
            throw new LockstepException(ErrorClass.BUFFER, "cannot attach a null buffer");
        }
        if (buffer != null) {
            throw new LockstepException(ErrorClass.BUFFER, "a buffer of " + buffer.byteSize() + " bytes is attached already;"
                    + " detach it first");
        }
        if (memory.isReadOnly()) {
            throw new LockstepException(ErrorClass.BUFFER, "the buffer for buffered sends is read-only");
        }
        buffer = memory;
    }

    /** Waits for every buffered send still in the buffer, then detaches it; null if none was attached. */
    public MemorySegment detach() {
        MemorySegment b = buffer;
        if (b == null) {
            return null;
        }
        try {
            for (InFlight f : inFlight) {
                f.send.await();
            }
        } finally {
            inFlight.clear();
            buffer = null;
        }
        return b;
    }

    /** Copies {@code bytes} bytes of {@code packed} into the buffer and starts sending the copy. */
    public void send(MemorySegment packed, long bytes, Sender sender) {
        if (buffer == null) {
            throw new LockstepException(ErrorClass.BUFFER, "a buffered send of " + bytes + " bytes needs an attached buffer"
                    + " (attachBuffer)");
        }
        reap();
        long at = firstFit(bytes);
        if (at < 0) {
            long used = inFlight.stream().mapToLong(InFlight::length).sum();
            throw new LockstepException(ErrorClass.BUFFER, "a buffered send of " + bytes + " bytes does not fit the attached buffer of "
                    + buffer.byteSize() + " bytes (" + used + " bytes are held by " + inFlight.size() + " sends not yet complete)");
        }
        MemorySegment slot = buffer.asSlice(at, bytes);
        if (bytes > 0) {
            MemorySegment.copy(packed, 0, slot, 0, bytes);
        }
        Request r = sender.send(slot, bytes);
        InFlight f = new InFlight(at, bytes, r);
        int i = 0;
        while (i < inFlight.size() && inFlight.get(i).offset < at) {
            i++;
        }
        inFlight.add(i, f);
    }

    private void reap() {
        for (Iterator<InFlight> it = inFlight.iterator(); it.hasNext();) {
            InFlight f = it.next();
            if (f.send.test().isPresent()) {
                it.remove();
            }
        }
    }

    private long firstFit(long bytes) {
        long at = 0;
        for (InFlight f : inFlight) {
            if (f.offset - at >= bytes) {
                return at;
            }
            at = f.offset + f.length;
        }
        return buffer.byteSize() - at >= bytes ? at : -1;
    }
}
