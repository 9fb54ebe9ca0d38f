package org.lockstep.embsp.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * How this real processor talks to the others: frames ({@link FrameLayout}) over the world
 * communicator of a messaging provider (the mailbox transport across processes on one host,
 * native MPI across hosts), owned by one agent thread — the only thread that calls the network,
 * so the provider needs no thread support. The agent posts what the VPs queue, keeps one receive
 * posted from every other processor (so a processor that dies is noticed at once: its receive
 * fails with {@code PROC_FAILED}), hands each arriving frame to the {@link FrameHandler}, and
 * runs the {@link Producer}s that stream answers out (α frames in flight each).
 *
 * <p>At the end every processor sends {@link FrameKind#BYE} and waits for everyone's; a processor
 * whose program failed sends {@link FrameKind#ABORT} instead.
 */
public final class Interconnect implements AutoCloseable {
    /** The network tag of every frame. */
    static final int TAG = 0x454d;
    /** Idle: spins, then parks for 20 µs, doubling up to 1 ms (frames and sends unpark it at once). */
    private static final long IDLE_PARK_NANOS = 20_000;
    private static final long MAX_IDLE_PARK_NANOS = 1_000_000;
    private static final int SPINS_BEFORE_PARK = 200;

    private final Communicator network;
    private final int processor;
    private final int processors;
    private final long maxFrame;
    private final Arena arena = Arena.ofShared();
    private final ConcurrentLinkedQueue<Outgoing> outbox = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<MemorySegment> freeBuffers = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Producer> newProducers = new ConcurrentLinkedQueue<>();
    private final LongAdder sentBytes = new LongAdder();
    private final LongAdder receivedBytes = new LongAdder();
    private final LongAdder frames = new LongAdder();
    private FrameHandler handler;
    private Thread agent;
    private volatile LockstepException failure;
    private volatile boolean finishing;
    private volatile boolean stopped;
    private boolean announced;
    private final List<byte[]> byes;

    /** A stream the agent keeps feeding: returns whether it did something, {@link #finished()} when it is through. */
    public interface Producer {
        boolean produce();

        boolean finished();
    }

    public Interconnect(Communicator network, long framePayloadBytes) {
        this.network = network;
        this.processor = network.rank();
        this.processors = network.size();
        this.maxFrame = FrameLayout.HEADER_BYTES + framePayloadBytes;
        this.byes = new ArrayList<>();
        for (int q = 0; q < processors; q++) {
            byes.add(null);
        }
    }

    public int processor() {
        return processor;
    }

    public int processors() {
        return processors;
    }

    /** Most payload bytes in one frame. */
    public long framePayload() {
        return maxFrame - FrameLayout.HEADER_BYTES;
    }

    /**
     * Before the agent starts: every processor sends {@code parameters} to every other and checks
     * theirs against its own; {@code setupFailure}, if not null, is sent instead and fails everyone.
     *
     * @throws LockstepException ARG naming the first parameter that differs, or the setup failure of a processor
     */
    public void handshake(String parameters, String setupFailure) {
        byte[] mine = (setupFailure == null ? parameters : setupFailure).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Frame hello = new Frame(FrameKind.HELLO, processor, 0, 0, setupFailure == null ? 0 : 1, 0, 0, MemorySegment.ofArray(mine));
        List<Request> sends = new ArrayList<>();
        for (int q = 0; q < processors; q++) {
            if (q != processor) {
                MemorySegment buffer = encode(hello);
                sends.add(network.isend(buffer, buffer.byteSize(), Datatype.BYTE, q, TAG));
            }
        }
        LockstepException problem = null;
        MemorySegment in = arena.allocate(maxFrame, 8);
        for (int q = 0; q < processors; q++) {
            if (q == processor) {
                continue;
            }
            Status status = network.recv(in, maxFrame, Datatype.BYTE, q, TAG);
            Frame theirs = FrameLayout.read(in, status.byteCount());
            String text = new String(theirs.payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    java.nio.charset.StandardCharsets.UTF_8);
            if (problem != null) {
                continue;
            }
            if (theirs.kind() != FrameKind.HELLO) {
                problem = new LockstepException(ErrorClass.INTERN, "real processor " + q + " sent " + theirs.kind() + " before HELLO");
            } else if (theirs.a() == 1) {
                problem = new LockstepException(ErrorClass.OTHER, "real processor " + q + " could not start: " + text);
            } else if (setupFailure == null && !text.equals(parameters)) {
                problem = new LockstepException(ErrorClass.ARG, "real processors disagree on the simulation's parameters: "
                        + difference(parameters, text, q));
            }
        }
        for (Request r : sends) {
            r.await();
        }
        if (setupFailure != null) {
            throw new LockstepException(ErrorClass.OTHER, setupFailure);
        }
        if (problem != null) {
            throw problem;
        }
    }

    /** The first key whose value differs, as "key: here X, on processor q Y". */
    static String difference(String mine, String theirs, int q) {
        java.util.Map<String, String> a = pairs(mine);
        java.util.Map<String, String> b = pairs(theirs);
        for (String key : a.keySet()) {
            if (!a.get(key).equals(b.get(key))) {
                return key + " is " + a.get(key) + " here but " + b.get(key) + " on real processor " + q;
            }
        }
        return "real processor " + q + " has " + theirs + " where this one has " + mine;
    }

    private static java.util.Map<String, String> pairs(String text) {
        java.util.Map<String, String> map = new java.util.LinkedHashMap<>();
        for (String pair : text.split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                map.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return map;
    }

    /** Starts the agent, which hands every arriving frame to {@code frameHandler}. */
    public void start(FrameHandler frameHandler) {
        this.handler = frameHandler;
        this.agent = Thread.ofPlatform().daemon(true).name("lockstep-embsp-network-" + processor).start(this::run);
    }

    /** A window of α frames in flight for one sending thread, counting its bytes on {@code networkBytes}. */
    public SendWindow window(int alpha, LongConsumer networkBytes) {
        return new SendWindow(this, alpha, networkBytes);
    }

    /** Queues {@code frame} for real processor {@code to}; its payload is copied, so the caller may reuse it at once. */
    public Outgoing send(int to, Frame frame, LongConsumer networkBytes) {
        checkHealthy();
        if (to == processor || to < 0 || to >= processors) {
            throw new IllegalArgumentException("no frames to processor " + to + " from processor " + processor);
        }
        if (frame.bytes() > maxFrame) {
            throw new IllegalArgumentException("frame of " + frame.bytes() + " bytes exceeds " + maxFrame);
        }
        Frame stamped = new Frame(frame.kind(), processor, frame.group(), frame.call(), frame.a(), frame.b(), frame.c(),
                frame.payload());
        boolean pooled = stamped.bytes() > 4096;
        MemorySegment buffer = pooled ? pooledBuffer().asSlice(0, stamped.bytes()) : MemorySegment.ofArray(new byte[(int) stamped.bytes()]);
        FrameLayout.writeHeader(buffer, stamped);
        MemorySegment.copy(stamped.payload(), 0, buffer, FrameLayout.HEADER_BYTES, stamped.payload().byteSize());
        Outgoing o = new Outgoing(to, buffer, pooled);
        if (networkBytes != null) {
            networkBytes.accept(stamped.bytes());
        }
        sentBytes.add(stamped.bytes());
        frames.increment();
        outbox.add(o);
        LockSupport.unpark(agent);
        return o;
    }

    /** Frame bytes sent by this processor. */
    public long sentBytes() {
        return sentBytes.sum();
    }

    /** Frame bytes this processor received. */
    public long receivedBytes() {
        return receivedBytes.sum();
    }

    /** Frames sent by this processor. */
    public long framesSent() {
        return frames.sum();
    }

    /** Has the agent run {@code producer} until it is finished. */
    public void produce(Producer producer) {
        checkHealthy();
        newProducers.add(producer);
        LockSupport.unpark(agent);
    }

    /** @throws LockstepException the network's failure, once there is one */
    public void checkHealthy() {
        LockstepException f = failure;
        if (f != null) {
            throw f;
        }
    }

    /** Whether the network has failed. */
    public boolean failed() {
        return failure != null;
    }

    /**
     * The end of a run that succeeded here: sends {@code report} to every processor as BYE, waits
     * for theirs, and stops the agent. Returns the reports by processor (this one's included).
     *
     * @throws LockstepException if the network failed or another processor aborted meanwhile
     */
    public List<byte[]> finish(byte[] report) {
        synchronized (byes) {
            byes.set(processor, report);
        }
        for (int q = 0; q < processors; q++) {
            if (q != processor) {
                send(q, new Frame(FrameKind.BYE, processor, 0, 0, 0, 0, 0, MemorySegment.ofArray(report)), null);
            }
        }
        finishing = true;
        LockSupport.unpark(agent);
        join();
        checkHealthy();
        synchronized (byes) {
            return new ArrayList<>(byes);
        }
    }

    /** Tells every other processor, once, that the run failed here (best effort; the agent keeps running). */
    public void announceFailure(String reason) {
        synchronized (byes) {
            if (announced || failure != null || agent == null) {
                return;
            }
            announced = true;
        }
        byte[] text = reason.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int q = 0; q < processors; q++) {
            if (q != processor) {
                try {
                    send(q, new Frame(FrameKind.ABORT, processor, 0, 0, 0, 0, 0,
                            MemorySegment.ofArray(java.util.Arrays.copyOf(text, (int) Math.min(text.length, maxFrame - FrameLayout.HEADER_BYTES)))), null);
                } catch (RuntimeException e) {
                    // the network is gone: nothing to tell
                }
            }
        }
    }

    /** The end of a run that failed here: tells every processor why (best effort) and stops the agent. */
    public void abort(String reason) {
        announceFailure(reason);
        if (agent != null) {
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (!outbox.isEmpty() && System.nanoTime() < deadline && failure == null) {
                LockSupport.parkNanos(1_000_000);
            }
        }
        stopped = true;
        if (agent != null) {
            LockSupport.unpark(agent);
            join();
        }
    }

    @Override
    public void close() {
        stopped = true;
        if (agent != null) {
            LockSupport.unpark(agent);
            join();
        }
        arena.close();
    }

    private void join() {
        if (agent == Thread.currentThread()) {
            return;
        }
        boolean interrupted = false;
        while (agent.isAlive()) {
            try {
                agent.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private MemorySegment pooledBuffer() {
        MemorySegment b = freeBuffers.poll();
        return b != null ? b : arena.allocate(maxFrame, 64);
    }

    private MemorySegment encode(Frame frame) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[(int) frame.bytes()]);
        FrameLayout.writeHeader(buffer, frame);
        MemorySegment.copy(frame.payload(), 0, buffer, FrameLayout.HEADER_BYTES, frame.payload().byteSize());
        return buffer;
    }

    // ------------------------------------------------------------------ the agent

    private void run() {
        List<Outgoing> inFlight = new ArrayList<>();
        List<Producer> producers = new ArrayList<>();
        MemorySegment[] inbound = new MemorySegment[processors];
        Request[] receives = new Request[processors];
        boolean[] said = new boolean[processors];
        said[processor] = true;
        int spins = 0;
        long park = IDLE_PARK_NANOS;
        try {
            for (int q = 0; q < processors; q++) {
                if (q != processor) {
                    inbound[q] = arena.allocate(maxFrame, 64);
                    receives[q] = network.irecv(inbound[q], maxFrame, Datatype.BYTE, q, TAG);
                }
            }
            while (!stopped) {
                boolean worked = false;
                for (Outgoing o; (o = outbox.poll()) != null; ) {
                    o.request = network.isend(o.buffer, o.buffer.byteSize(), Datatype.BYTE, o.to, TAG);
                    inFlight.add(o);
                    worked = true;
                }
                for (Iterator<Outgoing> it = inFlight.iterator(); it.hasNext(); ) {
                    Outgoing o = it.next();
                    if (o.request.test().isPresent()) {
                        it.remove();
                        if (o.pooled) {
                            freeBuffers.add(o.buffer.reinterpret(maxFrame));
                        }
                        o.markDone();
                        worked = true;
                    }
                }
                for (int q = 0; q < processors; q++) {
                    if (receives[q] == null) {
                        continue;
                    }
                    Optional<Status> arrived = receives[q].test();
                    if (arrived.isEmpty()) {
                        continue;
                    }
                    worked = true;
                    Frame frame = FrameLayout.read(inbound[q], arrived.get().byteCount());
                    receivedBytes.add(arrived.get().byteCount());
                    receives[q] = null;
                    switch (frame.kind()) {
                        case BYE -> {
                            synchronized (byes) {
                                byes.set(q, frame.payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                            }
                            said[q] = true;
                        }
                        case ABORT -> throw new ProcessFailedException(ErrorClass.PROC_FAILED, q, "real processor " + q
                                + " failed: " + new String(frame.payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                                java.nio.charset.StandardCharsets.UTF_8));
                        default -> {
                            handler.handle(frame);
                            receives[q] = network.irecv(inbound[q], maxFrame, Datatype.BYTE, q, TAG);
                        }
                    }
                }
                for (Producer p; (p = newProducers.poll()) != null; ) {
                    producers.add(p);
                }
                for (Iterator<Producer> it = producers.iterator(); it.hasNext(); ) {
                    Producer p = it.next();
                    worked |= p.produce();
                    if (p.finished()) {
                        it.remove();
                    }
                }
                if (finishing && inFlight.isEmpty() && outbox.isEmpty() && allTrue(said)) {
                    return;
                }
                if (worked) {
                    spins = 0;
                    park = IDLE_PARK_NANOS;
                } else if (++spins > SPINS_BEFORE_PARK) {
                    LockSupport.parkNanos(park);
                    park = Math.min(MAX_IDLE_PARK_NANOS, 2 * park);
                } else {
                    Thread.onSpinWait();
                }
            }
        } catch (LockstepException e) {
            fail(e);
        } catch (RuntimeException | Error e) {
            fail(new LockstepException(ErrorClass.INTERN, "real processor " + processor + "'s network agent failed: " + e, e));
        } finally {
            for (Request r : receives) {
                if (r != null && !r.isComplete()) {
                    try {
                        r.cancel();
                    } catch (RuntimeException e) {
                        // the network may be gone
                    }
                }
            }
            for (Outgoing o : inFlight) {
                o.markDone();
            }
        }
    }

    private void fail(LockstepException e) {
        if (stopped && !(e instanceof ProcessFailedException)) {
            return;
        }
        failure = e;
        for (Outgoing o; (o = outbox.poll()) != null; ) {
            o.markDone();
        }
        if (handler != null) {
            handler.failed(e);
        }
    }

    private static boolean allTrue(boolean[] values) {
        for (boolean v : values) {
            if (!v) {
                return false;
            }
        }
        return true;
    }
}
