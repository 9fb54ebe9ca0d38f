package org.lockstep.spi.messaging;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Message;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A message matched by a matched probe, the default way: the probe found it, and a receive of
 * exactly its source and tag, posted at once into private memory of its length, took it out of
 * matching (messages between two ranks do not overtake, so that receive matches the very message
 * probed). {@code mrecv} then copies it into the user's buffer.
 */
public final class ProbedMessage implements Message {
    private final Communicator owner;
    private final Status status;
    private final Request receive;
    private final MemorySegment held;
    private boolean taken;

    public ProbedMessage(Communicator owner, Status status, Request receive, MemorySegment held) {
        this.owner = owner;
        this.status = status;
        this.receive = receive;
        this.held = held;
    }

    @Override
    public Status status() {
        return status;
    }

    /**
     * The message's receive and bytes, once: a second call, or a call on another communicator, fails
     * with {@link ErrorClass#REQUEST}.
     */
    public static ProbedMessage take(Message message, Communicator by) {
        if (!(message instanceof ProbedMessage m) || m.owner != by) {
            throw new LockstepException(ErrorClass.REQUEST, "message " + message + " was not matched by a probe of this communicator");
        }
        if (m.taken) {
            throw new LockstepException(ErrorClass.REQUEST, "the matched message from rank " + m.status.source() + " with tag "
                    + m.status.tag() + " was received already");
        }
        m.taken = true;
        return m;
    }

    public Request receive() {
        return receive;
    }

    public MemorySegment held() {
        return held;
    }

    @Override
    public String toString() {
        return "message from rank " + status.source() + " tag " + status.tag() + " (" + status.byteCount() + " bytes)";
    }
}
