package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
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
import org.lockstep.spi.messaging.BufferedSends;
import org.lockstep.spi.messaging.CompletedRequest;
import org.lockstep.spi.messaging.PackedBuffer;
import org.lockstep.spi.messaging.PartitionedOperation;
import org.lockstep.spi.messaging.PersistentOperation;
import org.lockstep.spi.messaging.ProbedMessage;
import org.lockstep.spi.messaging.UnpackingRequest;

/**
 * The point-to-point calls {@link AbstractCommunicator} builds on its hooks, once for every
 * provider: buffered, ready and persistent sends, persistent and partitioned operations, send-
 * receive in place, and matched probes (a probe, then a receive of exactly the message probed).
 */
final class PointToPointCalls {
    private final CommunicatorHooks comm;
    private final BufferedSends buffered = new BufferedSends();

    PointToPointCalls(CommunicatorHooks comm) {
        this.comm = comm;
    }

    // ---------------------------------------------------------------- buffered

    void attach(MemorySegment memory) {
        comm.checkOpen();
        buffered.attach(memory);
    }

    MemorySegment detach() {
        return buffered.detach();
    }

    Request bsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        long bytes = comm.checkedSendBytes(buffer, count, type, dest, tag);
        if (dest == Communicator.PROC_NULL) {
            return CompletedRequest.of(Status.of(Communicator.PROC_NULL, tag, 0));
        }
        MemorySegment packed = type.isContiguous() ? buffer : PackedBuffer.forReading(buffer, count, type).segment();
        buffered.send(packed, bytes, (data, n) -> comm.implSend(data, n, dest, tag, false));
        return CompletedRequest.of(Status.of(dest, tag, bytes));
    }

    // ---------------------------------------------------------------- send-receive in place

    Status sendrecvReplace(MemorySegment buffer, long count, Datatype type, int dest, int sendTag, int source, int recvTag) {
        long bytes = comm.checkedSendBytes(buffer, count, type, dest, sendTag);
        comm.checkedReceiveCapacity(buffer, count, type, source, recvTag);
        // the outgoing message is a private copy: the receive overwrites the buffer
        MemorySegment copy = PackedBuffer.scratch(bytes);
        if (bytes > 0) {
            type.packAll(buffer, count, copy);
        }
        Request receive = comm.irecv(buffer, count, type, source, recvTag);
        Request send = comm.isend(copy, bytes, Datatype.BYTE, dest, sendTag);
        send.await();
        return receive.await();
    }

    // ---------------------------------------------------------------- matched probe

    Message mprobe(int source, int tag) {
        if (source == Communicator.PROC_NULL) {
            return Message.NO_PROC;
        }
        return matched(comm.implProbe(source, tag));
    }

    Optional<Message> improbe(int source, int tag) {
        if (source == Communicator.PROC_NULL) {
            return Optional.of(Message.NO_PROC);
        }
        return comm.implIprobe(source, tag).map(this::matched);
    }

    private Message matched(Status probed) {
        long bytes = probed.byteCount();
        MemorySegment held = PackedBuffer.scratch(bytes);
        return new ProbedMessage(comm, probed, comm.implReceive(held, bytes, probed.source(), probed.tag()), held);
    }

    Request imrecv(MemorySegment buffer, long count, Datatype type, Message message) {
        comm.checkOpen();
        long capacity = ArgumentChecks.checkBuffer(buffer, count, type, true);
        if (message == Message.NO_PROC) {
            return CompletedRequest.of(Status.of(Communicator.PROC_NULL, Communicator.ANY_TAG, 0));
        }
        ProbedMessage m = ProbedMessage.take(message, comm);
        return new MatchedReceive(m, buffer, count, type, capacity);
    }

    /** Completes the hidden receive of a matched message, then copies (unpacks) it into the user's buffer. */
    private static final class MatchedReceive implements Request {
        private final ProbedMessage message;
        private final MemorySegment buffer;
        private final long count;
        private final Datatype type;
        private final long capacity;
        private Status result;

        MatchedReceive(ProbedMessage message, MemorySegment buffer, long count, Datatype type, long capacity) {
            this.message = message;
            this.buffer = buffer;
            this.count = count;
            this.type = type;
            this.capacity = capacity;
        }

        private Status deliver(Status arrived) {
            if (result == null) {
                long bytes = arrived.byteCount();
                long delivered = Math.min(bytes, capacity);
                if (delivered > 0) {
                    type.unpackPartial(message.held(), 0, buffer, count, delivered);
                }
                result = bytes > capacity
                        ? new Status(arrived.source(), arrived.tag(), capacity, false, org.lockstep.api.ErrorClass.TRUNCATE)
                        : arrived;
            }
            if (result.error() == org.lockstep.api.ErrorClass.TRUNCATE) {
                throw new TruncationException(result, message.status().byteCount());
            }
            return result;
        }

        @Override
        public Status await() {
            return deliver(message.receive().await());
        }

        @Override
        public Optional<Status> test() {
            return message.receive().test().map(this::deliver);
        }

        @Override
        public boolean isComplete() {
            return message.receive().isComplete();
        }

        @Override
        public void cancel() {
            // matched already: it completes normally, as MPI says of a matched receive
        }
    }

    // ---------------------------------------------------------------- persistent and partitioned

    PersistentRequest sendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag, String mode, boolean synchronous,
                               boolean viaBuffer) {
        long bytes = comm.checkedSendBytes(buffer, count, type, dest, tag);
        String what = mode + " to rank " + dest + " tag " + tag;
        if (dest == Communicator.PROC_NULL) {
            return new PersistentOperation(what, () -> CompletedRequest.of(Status.of(Communicator.PROC_NULL, tag, 0)));
        }
        if (viaBuffer) {
            return new PersistentOperation(what, () -> bsend(buffer, count, type, dest, tag));
        }
        PackedBuffer packed = PackedBuffer.forWriting(buffer, count, type); // the copy is made once, filled at each start
        return new PersistentOperation(what, () -> {
            SendEvent event = Events.begun(SendEvent::new);
            comm.checkOpen();
            packed.pack();
            Request started = comm.implSend(packed.segment(), bytes, dest, tag, synchronous);
            if (event != null) {
                event.sent(comm.rank(), dest, tag, bytes, synchronous, false, comm.carriesCollectives);
            }
            return started;
        });
    }

    PersistentRequest recvInit(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        long capacity = comm.checkedReceiveCapacity(buffer, count, type, source, tag);
        String what = "receive from " + source + " tag " + tag;
        if (source == Communicator.PROC_NULL) {
            return new PersistentOperation(what, () -> CompletedRequest.of(Status.of(Communicator.PROC_NULL, Communicator.ANY_TAG, 0)));
        }
        PackedBuffer packed = PackedBuffer.forWriting(buffer, count, type);
        return new PersistentOperation(what, () -> {
            ReceiveEvent event = Events.begun(ReceiveEvent::new);
            comm.checkOpen();
            Request r = comm.implReceive(packed.segment(), capacity, source, tag);
            return comm.recordedReceive(event, packed.isCopy() ? new UnpackingRequest(r, packed) : r, source == Communicator.ANY_SOURCE);
        });
    }

    PartitionedRequest psendInit(MemorySegment buffer, int partitions, long count, Datatype type, int dest, int tag) {
        checkPartitions(partitions);
        comm.checkedSendBytes(buffer, Math.multiplyExact(count, (long) partitions), type, dest, tag);
        return PartitionedOperation.send(partitions, i -> comm.isend(part(buffer, i, count, type), count, type, dest, tag));
    }

    PartitionedRequest precvInit(MemorySegment buffer, int partitions, long count, Datatype type, int source, int tag) {
        checkPartitions(partitions);
        comm.checkedReceiveCapacity(buffer, Math.multiplyExact(count, (long) partitions), type, source, tag);
        return PartitionedOperation.receive(partitions, i -> comm.irecv(part(buffer, i, count, type), count, type, source, tag));
    }

    private static void checkPartitions(int partitions) {
        if (partitions <= 0) {
            throw new org.lockstep.api.LockstepException(org.lockstep.api.ErrorClass.ARG, "partitions " + partitions + " must be positive");
        }
    }

    private static MemorySegment part(MemorySegment buffer, int i, long count, Datatype type) {
        return buffer == null ? null : buffer.asSlice(i * count * type.extent());
    }
}
