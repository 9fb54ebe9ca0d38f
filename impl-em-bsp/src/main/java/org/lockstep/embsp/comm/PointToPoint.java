package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Scheduler;
import org.lockstep.embsp.sim.Vp;
import org.lockstep.spi.messaging.Envelope;
import org.lockstep.spi.messaging.MatchingEngine;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * Point-to-point messages between VPs, with MPI's matching (sources, tags, wildcards,
 * non-overtaking per sender and communicator, truncation, probe, cancel of unmatched receives).
 *
 * <p>What BSP allows and this does: a message whose receive is already posted is delivered at
 * once, directly into the receiver's buffer — in memory if the receiver is swapped in, else into
 * its context on disk. Otherwise a small message (up to {@code lockstep.embsp.eagerLimit}, while
 * the spool budget lasts) is buffered and the send completes; a larger one, or a synchronous one,
 * waits for its receive, which then reads it from the sender's buffer (from disk if the sender is
 * swapped out) and completes the send. A VP that must wait is swapped out only if its partition
 * is wanted.
 *
 * <p>With a VP of another real processor ({@link RemotePointToPoint}): the same matching, in the
 * receiver's mailbox on its processor; a small message goes eagerly over the network, a larger or
 * synchronous one is pulled by the receiver.
 *
 * <p>Limits: a standard send of a large message blocks until it is matched (MPI allows this;
 * programs that depend on buffering of large messages deadlock, and the deadlock is reported);
 * an {@code isend} buffer must stay untouched until completion, as MPI requires, because a
 * rendezvous receive may read it at any time.
 */
final class PointToPoint {
    private PointToPoint() {
    }

    /** A posted receive. */
    static final class PostedRecv extends MatchingEngine.PostedReceive {
        final EmRequest request;
        final Vp receiver;
        final Location destination;
        final MemorySegment buffer;
        final long capacity;
        /** The receiver's communicator's group: whoever completes the receive names the sender's rank in it. */
        final Group group;

        PostedRecv(int source, int tag, Group group, EmRequest request, Vp receiver, MemorySegment buffer) {
            super(source, tag, group.context());
            this.group = group;
            this.request = request;
            this.receiver = receiver;
            this.buffer = buffer;
            this.capacity = buffer.byteSize();
            this.destination = Location.of(receiver, buffer);
        }
    }

    /** Arguments are checked, {@code dest} is a rank (not PROC_NULL), and {@code data} holds {@code bytes} packed bytes. */
    static EmRequest send(EmCommunicator comm, MemorySegment buffer, long bytes, int dest, int tag, boolean synchronous) {
        CommWorld world = comm.world();
        Vp me = comm.vp();
        MemorySegment data = bytes == 0 ? MemorySegment.ofArray(new byte[0]) : buffer.asSlice(0, bytes);
        Group group = comm.vpGroup();
        if (!group.isLocal(dest)) {
            return world.elsewhere().send(comm, data, bytes, dest, tag, synchronous);
        }
        int target = group.vpOf(dest);
        EmRequest request = new EmRequest(world, me, (synchronous ? "ssend" : "send") + " to rank " + dest + " tag " + tag);
        Envelope envelope = new Envelope(me.id(), tag, group.context());
        Scheduler scheduler = world.scheduler();
        PostedRecv matched;
        scheduler.lock().lock();
        try {
            Mailbox box = world.mailbox(target);
            Message message;
            boolean eager = !synchronous && bytes <= world.options().eagerLimit() && world.reserveSpool(bytes);
            if (eager) {
                MemorySegment copy = MemorySegment.ofArray(new byte[(int) bytes]);
                MemorySegment.copy(data, 0, copy, 0, bytes);
                message = Message.buffered(me, tag, copy);
            } else {
                message = Message.announced(me, tag, Location.of(me, data), request);
            }
            matched = (PostedRecv) box.matching().arrive(new MatchingEngine.Arrival<>(envelope, bytes, message));
            if (matched == null) {
                box.signal().wakeAll(scheduler);
                if (eager) {
                    request.complete(Status.of(dest, tag, bytes));
                } else {
                    request.failsWhenGone(comm, dest); // its receiver reads it: none will if it ended
                }
                return request;
            }
            if (eager) {
                world.releaseSpool(message.spooled);
            }
        } finally {
            scheduler.lock().unlock();
        }
        long delivered = Math.min(bytes, matched.capacity);
        Deliveries inFlight = new Deliveries(me.partition(), world.options().alpha());
        try {
            world.machine().mover().write(me, data.asSlice(0, delivered), matched.destination.slice(0, delivered), null, inFlight);
        } finally {
            inFlight.drain();
        }
        scheduler.lock().lock();
        try {
            completeReceive(matched, group.rankOfVp(me.id()), tag, bytes);
            request.complete(Status.of(dest, tag, bytes));
        } finally {
            scheduler.lock().unlock();
        }
        return request;
    }

    /** Arguments are checked and {@code source} is a rank or ANY_SOURCE (not PROC_NULL). */
    static EmRequest receive(EmCommunicator comm, MemorySegment buffer, long capacity, int source, int tag) {
        CommWorld world = comm.world();
        Vp me = comm.vp();
        Group group = comm.vpGroup();
        MemorySegment destination = capacity == 0 ? MemorySegment.ofArray(new byte[0]) : buffer.asSlice(0, capacity);
        int wanted = source == Communicator.ANY_SOURCE ? MatchingEngine.ANY_SOURCE : group.vpOf(source);
        EmRequest request = new EmRequest(world, me, "recv from " + (source == Communicator.ANY_SOURCE ? "ANY_SOURCE" : "rank " + source)
                + " tag " + (tag == Communicator.ANY_TAG ? "ANY_TAG" : tag));
        PostedRecv posted = new PostedRecv(wanted, tag, group, request, me, destination);
        Scheduler scheduler = world.scheduler();
        Mailbox box = world.mailbox(me.id());
        MatchingEngine.Arrival<Message> arrival;
        scheduler.lock().lock();
        try {
            arrival = box.matching().post(posted);
            if (arrival == null) {
                request.onCancel(() -> {
                    scheduler.lock().lock();
                    try {
                        if (box.matching().cancel(posted)) {
                            request.complete(Status.ofCancelled());
                        }
                    } finally {
                        scheduler.lock().unlock();
                    }
                });
                request.failsWhenGone(comm, source);
                return request;
            }
        } finally {
            scheduler.lock().unlock();
        }
        take(world, group, posted, arrival.handle());
        return request;
    }

    /** The receiver copies a matched unexpected message into its buffer and completes both sides. */
    private static void take(CommWorld world, Group group, PostedRecv posted, Message message) {
        long delivered = Math.min(message.bytes, posted.capacity);
        if (message.pulledFromElsewhere()) {
            world.elsewhere().pull(message, posted.buffer.asSlice(0, delivered));
        } else if (message.spooled != null) {
            if (message.processor >= 0) {
                world.elsewhere().awaitComplete(message);
            }
            MemorySegment.copy(message.spooled, 0, posted.buffer, 0, delivered);
        } else if (delivered > 0) {
            Deliveries inFlight = new Deliveries(posted.receiver.partition(), world.options().alpha());
            world.machine().mover().read(posted.receiver, message.source.slice(0, delivered), posted.buffer.asSlice(0, delivered),
                    inFlight);
        }
        Scheduler scheduler = world.scheduler();
        scheduler.lock().lock();
        try {
            if (message.spooled != null) {
                world.releaseSpool(message.spooled);
            }
            if (message.send != null) {
                message.send.complete(Status.of(group.rankOfVp(posted.receiver.id()), message.tag, message.bytes));
            }
            completeReceive(posted, group.rankOfVp(message.senderVp), message.tag, message.bytes);
        } finally {
            scheduler.lock().unlock();
        }
    }

    static void completeReceive(PostedRecv posted, int sourceRank, int tag, long messageBytes) {
        if (messageBytes > posted.capacity) {
            posted.request.completeTruncated(new Status(sourceRank, tag, posted.capacity, false, ErrorClass.TRUNCATE), messageBytes);
        } else {
            posted.request.complete(Status.of(sourceRank, tag, messageBytes));
        }
    }

    static Status probe(EmCommunicator comm, int source, int tag) {
        while (true) {
            Optional<Status> found = peek(comm, source, tag);
            if (found.isPresent()) {
                return found.get();
            }
            CommWorld world = comm.world();
            Vp me = comm.vp();
            int wanted = wantedSource(comm, source);
            MatchingEngine<Message> matching = world.mailbox(me.id()).matching();
            world.scheduler().await(me, () -> matching.probe(wanted, tag, comm.vpGroup().context()) != null,
                    world.mailbox(me.id()).signal(), "probe from " + source + " tag " + tag, world.swapOut(me), world.swapIn(me));
        }
    }

    static Optional<Status> iprobe(EmCommunicator comm, int source, int tag) {
        Optional<Status> found = peek(comm, source, tag);
        if (found.isPresent()) {
            return found;
        }
        CommWorld world = comm.world();
        world.scheduler().yieldPoint(comm.vp(), world.swapOut(comm.vp()), world.swapIn(comm.vp()));
        ProgressAgents.advance(); // a polling VP's windows are served here (see Scheduler#await)
        return peek(comm, source, tag);
    }

    private static int wantedSource(EmCommunicator comm, int source) {
        return source == Communicator.ANY_SOURCE ? MatchingEngine.ANY_SOURCE : comm.vpGroup().vpOf(source);
    }

    /** Arguments are checked and {@code source} is a rank or ANY_SOURCE (not PROC_NULL). */
    private static Optional<Status> peek(EmCommunicator comm, int source, int tag) {
        comm.requireOpen();
        CommWorld world = comm.world();
        world.scheduler().lock().lock();
        try {
            MatchingEngine.Arrival<Message> a = world.mailbox(comm.vp().id()).matching()
                    .probe(wantedSource(comm, source), tag, comm.vpGroup().context());
            if (a == null) {
                return Optional.empty();
            }
            return Optional.of(Status.of(comm.vpGroup().rankOfVp(a.envelope().source()), a.envelope().tag(), a.byteLength()));
        } finally {
            world.scheduler().lock().unlock();
        }
    }
}
