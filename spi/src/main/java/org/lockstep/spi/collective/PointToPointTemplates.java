package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Message;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.spi.events.Events;
import org.lockstep.spi.events.ReceiveEvent;
import org.lockstep.spi.events.SendEvent;
import org.lockstep.spi.messaging.ArgumentChecks;
import org.lockstep.spi.messaging.CompletedRequest;
import org.lockstep.spi.messaging.PackedBuffer;
import org.lockstep.spi.messaging.UnpackingRequest;

/**
 * The point-to-point templates of {@link AbstractCommunicator}: each checks its arguments, handles
 * {@code PROC_NULL} and derived datatypes (packed into, or unpacked from, a private copy unless
 * contiguous), and calls the send, receive and probe hooks; buffered, matched, persistent and
 * partitioned calls go through {@link PointToPointCalls}. Sends and receives (blocking, and
 * non-blocking ones when they complete) are recorded as {@link SendEvent}s and {@link ReceiveEvent}s
 * when a Flight Recorder recording asks for them (the event is begun only then: with no recording
 * a call costs one check).
 */
public abstract class PointToPointTemplates extends CommunicatorHooks {
    private PointToPointCalls pointToPoint;

    /** Only the layers of this package extend it. */
    PointToPointTemplates() {
    }

    @Override
    public final void send(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        blockingSend(buffer, count, type, dest, tag, false);
    }

    @Override
    public final void ssend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        blockingSend(buffer, count, type, dest, tag, true);
    }

    private void blockingSend(MemorySegment buffer, long count, Datatype type, int dest, int tag, boolean synchronous) {
        SendEvent event = Events.begun(SendEvent::new);
        try {
            long bytes = checkedSendBytes(buffer, count, type, dest, tag);
            if (dest != PROC_NULL) {
                MemorySegment data = type.isContiguous() ? buffer : PackedBuffer.forReading(buffer, count, type).segment();
                implSendBlocking(data, bytes, dest, tag, synchronous);
                if (event != null) {
                    event.sent(rank(), dest, tag, bytes, synchronous, true, carriesCollectives);
                }
            }
        } catch (LockstepException e) {
            throw errors.failed(e);
        }
    }

    @Override
    public final Request isend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend(buffer, count, type, dest, tag, false);
    }

    @Override
    public final Request issend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend(buffer, count, type, dest, tag, true);
    }

    private Request startSend(MemorySegment buffer, long count, Datatype type, int dest, int tag, boolean synchronous) {
        SendEvent event = Events.begun(SendEvent::new);
        try {
            long bytes = checkedSendBytes(buffer, count, type, dest, tag);
            if (dest == PROC_NULL) {
                return errors.handled(CompletedRequest.of(Status.of(PROC_NULL, tag, 0)));
            }
            MemorySegment data = type.isContiguous() ? buffer : PackedBuffer.forReading(buffer, count, type).segment();
            Request started = implSend(data, bytes, dest, tag, synchronous);
            if (event != null) {
                event.sent(rank(), dest, tag, bytes, synchronous, false, carriesCollectives);
            }
            return errors.handled(started);
        } catch (LockstepException e) {
            throw errors.failed(e);
        }
    }

    @Override
    public final Status recv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        ReceiveEvent event = Events.begun(ReceiveEvent::new);
        try {
            long capacity = checkedReceiveCapacity(buffer, count, type, source, tag);
            if (source == PROC_NULL) {
                return Status.of(PROC_NULL, ANY_TAG, 0);
            }
            Status s = receiveBlocking(buffer, count, type, capacity, source, tag);
            if (event != null) {
                event.received(rank(), s.source(), s.tag(), s.byteCount(), source == ANY_SOURCE, carriesCollectives, true);
            }
            return s;
        } catch (LockstepException e) {
            throw errors.failed(e);
        }
    }

    private Status receiveBlocking(MemorySegment buffer, long count, Datatype type, long capacity, int source, int tag) {
        if (type.isContiguous()) {
            return implReceiveBlocking(buffer, capacity, source, tag);
        }
        PackedBuffer packed = PackedBuffer.forWriting(buffer, count, type);
        try {
            Status s = implReceiveBlocking(packed.segment(), capacity, source, tag);
            packed.unpack(s.byteCount());
            return s;
        } catch (TruncationException truncated) {
            packed.unpack(truncated.status().byteCount());
            throw truncated;
        }
    }

    @Override
    public final Request irecv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        ReceiveEvent event = Events.begun(ReceiveEvent::new);
        try {
            long capacity = checkedReceiveCapacity(buffer, count, type, source, tag);
            if (source == PROC_NULL) {
                return errors.handled(CompletedRequest.of(Status.of(PROC_NULL, ANY_TAG, 0)));
            }
            if (type.isContiguous()) {
                return recordedReceive(event, errors.handled(implReceive(buffer, capacity, source, tag)), source == ANY_SOURCE);
            }
            PackedBuffer packed = PackedBuffer.forWriting(buffer, count, type);
            return recordedReceive(event, errors.handled(new UnpackingRequest(implReceive(packed.segment(), capacity, source, tag), packed)),
                    source == ANY_SOURCE);
        } catch (LockstepException e) {
            throw errors.failed(e);
        }
    }

    @Override
    public final Status probe(int source, int tag) {
        try {
            checkProbe(source, tag);
            return source == PROC_NULL ? Status.of(PROC_NULL, ANY_TAG, 0) : implProbe(source, tag);
        } catch (LockstepException e) {
            throw errors.failed(e);
        }
    }

    @Override
    public final Optional<Status> iprobe(int source, int tag) {
        try {
            checkProbe(source, tag);
            return source == PROC_NULL ? Optional.of(Status.of(PROC_NULL, ANY_TAG, 0)) : implIprobe(source, tag);
        } catch (LockstepException e) {
            throw errors.failed(e);
        }
    }

    private void checkProbe(int source, int tag) {
        errors.begin();
        checkOpen();
        ArgumentChecks.checkSource(source, size());
        ArgumentChecks.checkReceiveTag(tag);
    }

    private PointToPointCalls pointToPoint() {
        PointToPointCalls p = pointToPoint;
        if (p == null) {
            p = new PointToPointCalls(this);
            pointToPoint = p;
        }
        return p;
    }

    @Override
    public final void rsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        blockingSend(buffer, count, type, dest, tag, false);
    }

    @Override
    public final Request irsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend(buffer, count, type, dest, tag, false);
    }

    @Override
    public final void bsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        runWithHandler(() -> pointToPoint().bsend(buffer, count, type, dest, tag));
    }

    @Override
    public final Request ibsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return started(() -> pointToPoint().bsend(buffer, count, type, dest, tag));
    }

    @Override
    public final void attachBuffer(MemorySegment buffer) {
        runWithHandler(() -> pointToPoint().attach(buffer));
    }

    @Override
    public final MemorySegment detachBuffer() {
        return withHandler(() -> pointToPoint().detach());
    }

    @Override
    public final Status sendrecvReplace(MemorySegment buffer, long count, Datatype type, int dest, int sendTag, int source,
                                        int recvTag) {
        return withHandler(() -> pointToPoint().sendrecvReplace(buffer, count, type, dest, sendTag, source, recvTag));
    }

    @Override
    public final Message mprobe(int source, int tag) {
        return withHandler(() -> {
            checkProbe(source, tag);
            return pointToPoint().mprobe(source, tag);
        });
    }

    @Override
    public final Optional<Message> improbe(int source, int tag) {
        return withHandler(() -> {
            checkProbe(source, tag);
            return pointToPoint().improbe(source, tag);
        });
    }

    @Override
    public final Status mrecv(MemorySegment buffer, long count, Datatype type, Message message) {
        ReceiveEvent event = Events.begun(ReceiveEvent::new);
        Status s = withHandler(() -> pointToPoint().imrecv(buffer, count, type, message).await());
        if (event != null && message != Message.NO_PROC) {
            event.received(rank(), s.source(), s.tag(), s.byteCount(), false, carriesCollectives, true);
        }
        return s;
    }

    @Override
    public final Request imrecv(MemorySegment buffer, long count, Datatype type, Message message) {
        ReceiveEvent event = Events.begun(ReceiveEvent::new);
        Request started = started(() -> pointToPoint().imrecv(buffer, count, type, message));
        return message == Message.NO_PROC ? started : recordedReceive(event, started, false);
    }

    @Override
    public final PersistentRequest sendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startedPersistent(() -> pointToPoint().sendInit(buffer, count, type, dest, tag, "send", false, false));
    }

    @Override
    public final PersistentRequest ssendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startedPersistent(() -> pointToPoint().sendInit(buffer, count, type, dest, tag, "ssend", true, false));
    }

    @Override
    public final PersistentRequest bsendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startedPersistent(() -> pointToPoint().sendInit(buffer, count, type, dest, tag, "bsend", false, true));
    }

    @Override
    public final PersistentRequest rsendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startedPersistent(() -> pointToPoint().sendInit(buffer, count, type, dest, tag, "rsend", false, false));
    }

    @Override
    public final PersistentRequest recvInit(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        return startedPersistent(() -> pointToPoint().recvInit(buffer, count, type, source, tag));
    }

    @Override
    public final PartitionedRequest psendInit(MemorySegment buffer, int partitions, long count, Datatype type, int dest, int tag) {
        return startedPartitioned(() -> pointToPoint().psendInit(buffer, partitions, count, type, dest, tag));
    }

    @Override
    public final PartitionedRequest precvInit(MemorySegment buffer, int partitions, long count, Datatype type, int source, int tag) {
        return startedPartitioned(() -> pointToPoint().precvInit(buffer, partitions, count, type, source, tag));
    }
}
