package org.lockstep.spi.messaging;

import java.util.Optional;

import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

/**
 * A receive into a packed copy: completes when the transport's request completes, and then
 * unpacks what arrived into the user's buffer once — also when the message was truncated, since
 * the buffer must then hold the first part.
 */
public final class UnpackingRequest implements Request {
    private final Request transport;
    private final PackedBuffer buffer;
    private boolean unpacked;

    public UnpackingRequest(Request transport, PackedBuffer buffer) {
        this.transport = transport;
        this.buffer = buffer;
    }

    @Override
    public Status await() {
        try {
            return unpacked(transport.await());
        } catch (TruncationException truncated) {
            unpacked(truncated.status());
            throw truncated;
        }
    }

    @Override
    public Optional<Status> test() {
        try {
            return transport.test().map(this::unpacked);
        } catch (TruncationException truncated) {
            unpacked(truncated.status());
            throw truncated;
        }
    }

    private Status unpacked(Status status) {
        if (!unpacked) {
            unpacked = true;
            if (!status.cancelled()) {
                buffer.unpack(status.byteCount());
            }
        }
        return status;
    }

    @Override
    public boolean isComplete() {
        return transport.isComplete();
    }

    @Override
    public void cancel() {
        transport.cancel();
    }
}
