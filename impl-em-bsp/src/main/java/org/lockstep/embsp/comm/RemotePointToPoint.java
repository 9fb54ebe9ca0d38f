package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import org.lockstep.api.Status;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;
import org.lockstep.embsp.net.SendWindow;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.IoActor;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;
import org.lockstep.spi.messaging.Envelope;
import org.lockstep.spi.messaging.MatchingEngine;

/**
 * Point-to-point between VPs of different real processors. The receiver's processor matches, in
 * the receiver's mailbox, as for a message from a VP of its own; a sender's frames to it arrive in
 * the order sent and a sender's messages do not interleave, so MPI's non-overtaking holds. Each
 * message crosses the network once (seed 003), in frames with α in flight.
 * <ul>
 *   <li><b>Eager</b> (up to {@code lockstep.embsp.eagerLimit} bytes, not synchronous): the sender
 *       streams the bytes and its send completes once they are queued (the frames are copies).
 *       The receiver's agent matches the message at its first frame and writes it into the posted
 *       receive's buffer (the receiver's context, in memory or on disk), or, unexpected, into a
 *       spool copy that the receive takes once the last frame is in.</li>
 *   <li><b>Rendezvous</b> (larger, or synchronous): the sender announces the message and its send
 *       waits; the receiver pulls the bytes from the sender's buffer (its context, memory or disk)
 *       — the receiving VP itself, holding its partition, or the agent into a receive posted
 *       before the announcement came. The send completes when the pull is served.</li>
 * </ul>
 * Agent I/O counts as point-to-point I/O.
 */
final class RemotePointToPoint {
    private static final LongConsumer UNCOUNTED = bytes -> {
    };

    private final CommWorld world;
    private final Remote remote;
    private final AtomicLong nextSend = new AtomicLong(1);
    /** Rendezvous sends of VPs here, by id, until their receiver's pull is served (scheduler lock). */
    private final Map<Long, Announced> announced = new HashMap<>();
    /** Eager messages from elsewhere whose frames are still arriving, by sending VP (agent only). */
    private final Map<Integer, Arriving> arriving = new HashMap<>();

    private record Announced(Location source, EmRequest request, int destRank, int tag, long bytes) {
    }

    /** Where the frames of one eager message go: a matched receive, or the message's spool copy. */
    private static final class Arriving {
        final AlignedWriter writer;
        final Message unexpected;
        final PointToPoint.PostedRecv matched;
        long received;

        Arriving(AlignedWriter writer, Message unexpected, PointToPoint.PostedRecv matched) {
            this.writer = writer;
            this.unexpected = unexpected;
            this.matched = matched;
        }
    }

    RemotePointToPoint(CommWorld world, Remote remote) {
        this.world = world;
        this.remote = remote;
    }

    // ------------------------------------------------------------------ the sending VP

    /** A send from the calling VP to rank {@code dest} of its communicator, whom another real processor simulates. */
    EmRequest send(EmCommunicator comm, MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        Vp me = comm.vp();
        Group group = comm.vpGroup();
        int to = group.processorOf(dest);
        long envelope = ((long) me.id() << 32) | group.vpOf(dest);
        EmRequest request = new EmRequest(world, me, (synchronous ? "ssend" : "send") + " to rank " + dest + " tag " + tag
                + " on real processor " + to);
        // a spool copy is one Java array
        if (!synchronous && bytes <= Math.min(world.options().eagerLimit(), Integer.MAX_VALUE - 16)) {
            SendWindow window = remote.network().window(remote.alpha(), UNCOUNTED);
            long frame = remote.framePayload();
            long offset = 0;
            do {
                long n = Math.min(frame, bytes - offset);
                window.send(to, Frame.of(FrameKind.P2P_EAGER, group.context(), bytes, envelope, tag, offset).with(data.asSlice(offset, n)));
                offset += n;
            } while (offset < bytes);
            locked(() -> request.complete(Status.of(dest, tag, bytes)));
            return request;
        }
        long id = nextSend.getAndIncrement();
        locked(() -> announced.put(id, new Announced(Location.of(me, data), request, dest, tag, bytes)));
        remote.network().send(to, Frame.of(FrameKind.P2P_ANNOUNCE, group.context(), bytes, envelope, tag, id), UNCOUNTED);
        return request;
    }

    // ------------------------------------------------------------------ the receiving VP

    /** Pulls an announced message's first {@code into.byteSize()} bytes into the calling VP's own memory, holding its partition. */
    void pull(Message message, MemorySegment into) {
        Remote.Pull pull = remote.ask(message.processor, id -> request(id, message.sendId, into.byteSize()), remote.memoryOf(into),
                agentActor(), UNCOUNTED, null);
        // the sender's bytes are published and it waits for this pull: the answer depends on no VP
        remote.awaitPull(pull);
    }

    /** Waits, holding the partition, until every byte of an eager message from elsewhere is in its spool (its sender is streaming it). */
    void awaitComplete(Message message) {
        world.awaitHolding(() -> message.complete, "the rest of an eager message from another real processor");
    }

    // ------------------------------------------------------------------ the agent

    /** A point-to-point frame from another real processor (agent). */
    void handle(Frame frame) {
        switch (frame.kind()) {
            case P2P_EAGER -> eager(frame);
            case P2P_ANNOUNCE -> announcement(frame);
            case P2P_PULL -> pullRequested(frame);
            default -> throw new IllegalStateException("not a point-to-point frame: " + frame.kind());
        }
    }

    private void eager(Frame frame) {
        int sender = (int) (frame.a() >>> 32);
        long total = frame.call();
        Arriving in = arriving.get(sender);
        if (in == null) {
            in = matchFirstFrame(frame, sender, total);
            arriving.put(sender, in);
        }
        long room = Math.max(0, Math.min(frame.payload().byteSize(), in.writer.length() - frame.c()));
        if (room > 0) {
            Deliveries writes = remote.agentDeliveries();
            try {
                in.writer.accept(frame.c(), frame.payload().asSlice(0, room), remote.agentScratch(), remote.mover(), agentActor(), writes);
            } finally {
                writes.drain();
            }
        }
        in.received += frame.payload().byteSize();
        if (in.received < total) {
            return;
        }
        arriving.remove(sender);
        Arriving done = in;
        locked(() -> {
            if (done.matched != null) {
                PointToPoint.completeReceive(done.matched, done.matched.group.rankOfVp(sender), (int) frame.b(), total);
            } else {
                done.unexpected.complete = true;
            }
        });
    }

    /** The first frame of an eager message: matched with a posted receive, or kept as unexpected in a spool copy. */
    private Arriving matchFirstFrame(Frame frame, int sender, long total) {
        int receiver = (int) frame.a();
        int tag = (int) frame.b();
        Message message = Message.arriving(sender, tag, total, frame.from());
        Arriving[] in = new Arriving[1];
        locked(() -> {
            Mailbox box = world.mailbox(receiver);
            PointToPoint.PostedRecv matched = arrive(box, message, (int) frame.group());
            if (matched != null) {
                Location into = matched.destination.slice(0, Math.min(total, matched.capacity));
                in[0] = new Arriving(new AlignedWriter(into, world.options().blockSize(), null), null, matched);
                return;
            }
            if (!world.reserveSpool(total)) {
                world.overdrawSpool(total);
            }
            message.spooled = MemorySegment.ofArray(new byte[(int) total]);
            in[0] = new Arriving(remote.memoryOf(message.spooled), message, null);
            box.signal().wakeAll(world.scheduler());
        });
        return in[0];
    }

    private void announcement(Frame frame) {
        int sender = (int) (frame.a() >>> 32);
        int tag = (int) frame.b();
        long total = frame.call();
        Message message = Message.announcedElsewhere(sender, tag, total, frame.from(), frame.c());
        PointToPoint.PostedRecv[] matched = new PointToPoint.PostedRecv[1];
        locked(() -> {
            Mailbox box = world.mailbox((int) frame.a());
            matched[0] = arrive(box, message, (int) frame.group());
            if (matched[0] == null) {
                box.signal().wakeAll(world.scheduler());
            }
        });
        PointToPoint.PostedRecv posted = matched[0];
        if (posted == null) {
            return;
        }
        // the receive was posted first: the agent pulls into it, wherever its VP's context is now
        long length = Math.min(total, posted.capacity);
        AlignedWriter into = new AlignedWriter(posted.destination.slice(0, length), world.options().blockSize(), null);
        remote.ask(message.processor, id -> request(id, message.sendId, length), into, agentActor(), UNCOUNTED, failure -> locked(() -> {
            if (failure == null) {
                PointToPoint.completeReceive(posted, posted.group.rankOfVp(sender), tag, total);
            } else {
                posted.request.fail(failure);
            }
        }));
    }

    /** A receiver elsewhere pulls an announced message of a VP here: the agent reads it from the sender's buffer. */
    private void pullRequested(Frame frame) {
        long id = frame.b();
        long length = frame.c();
        Announced[] send = new Announced[1];
        locked(() -> send[0] = announced.get(id));
        Announced s = send[0];
        String error = s == null ? "a pull of send " + id + ", which no VP of real processor " + remote.here() + " made"
                : length > s.bytes() ? "a pull of " + length + " bytes of a message of " + s.bytes() : null;
        Location source = error == null ? s.source().slice(0, length) : null;
        PullService.Request request = new PullService.Request(frame.from(), frame.a(), PullService.SEND_BUFFER, -1, 0, length);
        remote.network().produce(new PullService(remote, Frame.of(FrameKind.PULLED, 0, 0, frame.a(), 0, 0), request, source, error,
                agentActor(), UNCOUNTED, () -> {
                    if (s != null) {
                        locked(() -> {
                            announced.remove(id);
                            s.request().complete(Status.of(s.destRank(), s.tag(), s.bytes()));
                        });
                    }
                }));
    }

    // ------------------------------------------------------------------ shared

    private static Frame request(long pullId, long sendId, long length) {
        return Frame.of(FrameKind.P2P_PULL, 0, 0, pullId, sendId, length);
    }

    /** Arrives {@code message} in {@code box} (scheduler lock held); the posted receive it matches, or null. */
    private static PointToPoint.PostedRecv arrive(Mailbox box, Message message, int context) {
        return (PointToPoint.PostedRecv) box.matching().arrive(new MatchingEngine.Arrival<>(new Envelope(message.senderVp, message.tag,
                context), message.bytes, message));
    }

    /** The agent moving point-to-point bytes: its staging, its I/O counted as point-to-point I/O. */
    private IoActor agentActor() {
        return IoActor.of(world.machine().agentPartition(), world.machine().accounting().world(),
                world.machine().accounting().pointToPoint());
    }

    private void locked(Runnable action) {
        world.scheduler().lock().lock();
        try {
            action.run();
        } finally {
            world.scheduler().lock().unlock();
        }
    }
}
