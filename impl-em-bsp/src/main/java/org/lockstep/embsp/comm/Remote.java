package org.lockstep.embsp.comm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;
import org.lockstep.embsp.net.Interconnect;
import org.lockstep.embsp.net.Outgoing;
import org.lockstep.embsp.net.PollingWait;
import org.lockstep.embsp.net.SendWindow;
import org.lockstep.embsp.sim.CompositeSignal;
import org.lockstep.embsp.sim.DataMover;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.IoActor;
import org.lockstep.embsp.sim.Location;

/**
 * What the collectives of a group that spans real processors use to reach the others: control
 * frames to the processors of a group, message bytes in frames with α in flight, pulls (a read of
 * another processor's context, answered by its agent) and the agent's own I/O — it delivers
 * arriving bytes into contexts, and its I/O counts on the call it serves.
 */
final class Remote {
    private final CommWorld world;
    private final Interconnect network;
    private final AtomicLong nextPull = new AtomicLong(1);
    /** Pulls this processor made, by id, until their last byte is in place. */
    private final Map<Long, Pull> pulls = new ConcurrentHashMap<>();
    private final Arena arena = Arena.ofShared();
    private MemorySegment agentChunk;
    private MemorySegment agentScratch;

    /**
     * A pull this processor made: bytes of another processor's context on their way into its
     * writer's target, the agent's writes counted on {@link #actor}. Its asker either waits for it
     * ({@code whenDone} null) or is told by the agent ({@code whenDone} gets null, or the failure).
     */
    static final class Pull {
        final AlignedWriter writer;
        final IoActor actor;
        final Consumer<LockstepException> whenDone;
        final Thread waiter = Thread.currentThread();
        volatile boolean done;
        volatile LockstepException failure;

        Pull(AlignedWriter writer, IoActor actor, Consumer<LockstepException> whenDone) {
            this.writer = writer;
            this.actor = actor;
            this.whenDone = whenDone;
        }
    }

    Remote(CommWorld world) {
        this.world = world;
        this.network = world.network();
    }

    Interconnect network() {
        return network;
    }

    int here() {
        return network.processor();
    }

    long framePayload() {
        return network.framePayload();
    }

    int alpha() {
        return world.options().alpha();
    }

    DataMover mover() {
        return world.machine().mover();
    }

    /** The agent's buffer for one frame's payload (agent thread only). */
    MemorySegment agentChunk() {
        if (agentChunk == null) {
            agentChunk = arena.allocate(framePayload(), Math.max(64, world.machine().store().memoryAlignment()));
        }
        return agentChunk;
    }

    /** The agent's buffer for a frame's payload with up to a block carried before it (agent thread only). */
    MemorySegment agentScratch() {
        if (agentScratch == null) {
            agentScratch = arena.allocate(framePayload() + world.options().blockSize(), 64);
        }
        return agentScratch;
    }

    /** The agent as the mover of bytes for {@code call}: its own staging, its I/O counted on the call. */
    IoActor agentActor(CallState call) {
        return IoActor.of(world.machine().agentPartition(), world.machine().accounting().world(), call.io.counted());
    }

    Deliveries agentDeliveries() {
        return new Deliveries(world.machine().agentPartition(), alpha());
    }

    /** Sends {@code frame} to processor {@code to}, counted on {@code call}. */
    Outgoing send(int to, Frame frame, CallState call) {
        return network.send(to, frame, call.io::sent);
    }

    /** Sends {@code frame} to every other processor that simulates members of {@code group}. */
    void toOthers(Group group, Frame frame, CallState call) {
        for (int q : group.processors()) {
            if (q != here()) {
                send(q, frame, call);
            }
        }
    }

    /** A window of α frames in flight for a VP sending message bytes of {@code call}. */
    SendWindow window(CallState call) {
        return network.window(alpha(), call.io::sent);
    }

    /**
     * Sends {@code data} as frames of {@code kind} (a, b as given, c the offset in the message) to
     * processor {@code to} through {@code window}; an empty message is one empty frame.
     */
    void stream(SendWindow window, int to, FrameKind kind, Group group, CallState call, long a, long b, MemorySegment data) {
        long frame = framePayload();
        long length = data.byteSize();
        long offset = 0;
        do {
            long n = Math.min(frame, length - offset);
            window.send(to, Frame.of(kind, group.key(), call.sequence, a, b, offset).with(data.asSlice(offset, n)));
            offset += n;
        } while (offset < length);
    }

    // ------------------------------------------------------------------ pulls, the asking side

    /**
     * Reads {@code target.length()} bytes of {@code what} (of rank {@code rank}, from {@code offset})
     * of processor {@code from} into {@code target}, the calling VP's own memory, and waits for them
     * holding its partition: only data already published is pulled, so the answer depends on no
     * VP and always comes.
     *
     * @throws LockstepException if the sizes disagree, or the network failed
     */
    void pull(Group group, CallState call, int from, int what, int rank, long offset, MemorySegment target) {
        MemorySegment request = MemorySegment.ofArray(new long[] {target.byteSize(), rank, offset});
        call.io.control(1, request.byteSize());
        Pull pull = ask(from, id -> Frame.of(FrameKind.PULL, group.key(), call.sequence, id, what, offset).with(request),
                memoryOf(target), agentActor(call), call.io::sent, null);
        awaitPull(pull);
    }

    /** Waits, holding whatever the calling thread holds, until {@code pull}'s last byte is in place. */
    void awaitPull(Pull pull) {
        PollingWait.until(() -> pull.done, network::checkHealthy, pull, "bytes pulled from another real processor");
        if (pull.failure != null) {
            throw pull.failure;
        }
    }

    /** A writer of bytes into {@code target}, memory outside any context (the calling VP's own, held). */
    AlignedWriter memoryOf(MemorySegment target) {
        return new AlignedWriter(new Location(null, 0, target, target.byteSize()), world.options().blockSize(), null);
    }

    /**
     * Sends processor {@code from} the request {@code frame} makes of the pull's id, counting its
     * bytes on {@code sent}; the answer's bytes go through {@code writer}, their I/O counted on
     * {@code actor}. With {@code whenDone} the agent calls it at the end, else the asker waits
     * ({@link #awaitPull}).
     */
    Pull ask(int from, java.util.function.LongFunction<Frame> frame, AlignedWriter writer, IoActor actor, LongConsumer sent,
             Consumer<LockstepException> whenDone) {
        long id = nextPull.getAndIncrement();
        Pull pull = new Pull(writer, actor, whenDone);
        pulls.put(id, pull);
        network.send(from, frame.apply(id), sent);
        return pull;
    }

    /** A PULLED frame: bytes (or an error) answering one of this processor's pulls (agent). */
    void pulled(Frame frame) {
        Pull pull = pulls.get(frame.a());
        if (pull == null) {
            throw new IllegalStateException("bytes for pull " + frame.a() + ", which this processor did not ask for");
        }
        if (frame.c() == -1) {
            pull.failure = new LockstepException(ErrorClass.COUNT, new String(frame.payload().toArray(ValueLayout.JAVA_BYTE),
                    java.nio.charset.StandardCharsets.UTF_8));
        } else {
            Deliveries writes = agentDeliveries();
            try {
                pull.writer.accept(frame.b(), frame.payload(), agentScratch(), mover(), pull.actor, writes);
            } finally {
                writes.drain();
            }
            if (!pull.writer.complete()) {
                return;
            }
        }
        pulls.remove(frame.a());
        pull.done = true;
        if (pull.whenDone != null) {
            pull.whenDone.accept(pull.failure);
        } else {
            java.util.concurrent.locks.LockSupport.unpark(pull.waiter);
        }
    }

    // ------------------------------------------------------------------ pulls, the answering side

    /** A PULL frame (agent): answered now if its data is published, else when its owner publishes it. */
    void pullRequested(Group group, CallState call, Frame frame) {
        MemorySegment p = frame.payload();
        PullService.Request request = new PullService.Request(frame.from(), frame.a(), (int) frame.b(),
                (int) p.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 1), p.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 2),
                p.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        world.scheduler().lock().lock();
        try {
            if (!answer(group, call, request)) {
                int key = request.what() == PullService.SEND_BUFFER ? request.rank() : -1;
                call.span.pendingPulls.computeIfAbsent(key, k -> new java.util.ArrayList<>()).add(request);
            }
        } finally {
            world.scheduler().lock().unlock();
        }
    }

    /** Starts answering the pulls that waited for {@code key}'s data (rank, or -1 for the root's), now published (lock held). */
    void publish(Group group, CallState call, int key) {
        List<PullService.Request> waiting = call.span.pendingPulls.remove(key);
        if (waiting != null) {
            for (PullService.Request r : waiting) {
                answer(group, call, r);
            }
        }
    }

    /** Hands {@code request} to the agent if its data is published; false if not yet (lock held). */
    private boolean answer(Group group, CallState call, PullService.Request request) {
        Location source;
        String error = null;
        switch (request.what()) {
            case PullService.ROOT -> {
                if (call.rootBuffer == null) {
                    return false;
                }
                source = call.rootBuffer;
                if (request.offset() + request.length() > source.length()) {
                    error = call.operation + ": rank " + request.rank() + " expects " + request.length()
                            + " bytes where the root gives " + source.length();
                }
            }
            case PullService.ROOT_BLOCK -> {
                if (call.rootBuffer == null) {
                    return false;
                }
                long count = call.rootCounts[request.rank()];
                source = call.rootBuffer.slice(call.rootDisplacements[request.rank()], count);
                if (count != request.length()) {
                    error = call.operation + ": rank " + request.rank() + " expects " + request.length()
                            + " bytes where the root sends it " + count;
                }
            }
            default -> {
                source = call.sendBuffers[request.rank()];
                if (source == null) {
                    return false;
                }
                if (source.length() != request.length()) {
                    error = call.operation + ": a rank expects " + request.length() + " bytes from rank " + request.rank()
                            + ", which gives " + source.length();
                }
            }
        }
        if (error == null) {
            source = source.slice(request.what() == PullService.ROOT ? request.offset() : 0, request.length());
            call.io.pull(request.length());
        }
        network.produce(new PullService(this, Frame.of(FrameKind.PULLED, group.key(), call.sequence, request.id(), 0, 0), request,
                source, error, agentActor(call), call.io::sent, () -> served(call)));
        return true;
    }

    /** A pull of data here is answered in full: the owner may leave once all are (agent). */
    void served(CallState call) {
        world.scheduler().lock().lock();
        try {
            call.span.servedPulls++;
            call.finished.wakeAll(world.scheduler());
            call.rootReady.wakeAll(world.scheduler());
        } finally {
            world.scheduler().lock().unlock();
        }
    }

    /** Replays frames that arrived before their group formed here (on the agent). */
    void replay(List<Frame> frames) {
        FrameDispatch dispatch = new FrameDispatch(world, world.collectives());
        network.produce(new Interconnect.Producer() {
            private boolean done;

            @Override
            public boolean produce() {
                if (!done) {
                    done = true;
                    for (Frame f : frames) {
                        dispatch.handle(f);
                    }
                }
                return true;
            }

            @Override
            public boolean finished() {
                return done;
            }
        });
    }

}
