package org.lockstep.spi.window;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Message;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Op;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Window.LockType;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.PeerLiveness;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * The point-to-point window protocol at one rank: it sends this rank's {@link RmaFrame}s and
 * serves those that arrive, as target (applies puts and accumulates in arrival order, so each is
 * atomic against the others; answers gets, compare-and-swaps, locks, flushes and unlocks) and as
 * origin (fills a get's buffer from its reply, counts the grants and acknowledgements it waits
 * for); synchronisation frames (fence, post, complete, free) are counted per source for
 * {@link PointToPointWindow} to wait on.
 *
 * <p>Frames between two ranks are one message stream (one communicator, one tag), so they are
 * served in the order sent: a fence, complete, flush or unlock that follows an origin's accesses
 * reaches the target after them, and needs no count of them.
 *
 * <p>Fence epochs: an access that an origin sends after its k-th fence belongs to epoch k + 1, and
 * waits here until this rank's own k-th fence is over — the origin may leave a fence before a third
 * rank's accesses of the epoch before have reached this one.
 *
 * <p>Progress: a target serves only while it is inside the library — in a call of this window, or
 * in any wait that runs the thread's {@link ProgressAgents} (those of {@code AbstractRequest} and
 * the SPI's schedules). A passive-target origin therefore waits for a target that is busy outside
 * the library, or blocked in a provider's own wait that does not run the agents, until the target
 * next calls in.
 */
final class RmaAgent {
    private static final int TAG = 0;
    private static final MemorySegment NO_DATA = MemorySegment.ofArray(new byte[0]);

    private final Communicator comm;
    private final PeerLiveness liveness;
    private final Supplier<IdleStrategy> backOff;
    private final MemorySegment memory;
    private final TargetLocks locks;
    /** Synchronisation frames received, per source and kind. */
    final long[] fences;
    final long[] posts;
    final long[] completes;
    final long[] frees;
    /** Where each awaited reply goes, by ticket. */
    private final Map<Integer, MemorySegment> awaited = new HashMap<>();
    /** Lock requests a target denied, by ticket: the holder that had gone. */
    private final Map<Integer, Integer> denied = new HashMap<>();
    /** Replies awaited from each target: a wait for them must fail if that target is gone. */
    private final int[] repliesOwed;
    private int nextTicket;
    private final List<Request> sends = new ArrayList<>();
    /** This rank's fences that are over: accesses of a later epoch wait in {@link #early}. */
    private long fencesOver;
    private final ArrayDeque<EarlyAccess> early = new ArrayDeque<>();

    /** An access frame from {@code source} of fence epoch {@code epoch + 1}, received before this rank's fence {@code epoch} was over. */
    private record EarlyAccess(int source, long epoch, RmaFrame frame) {
    }
    /**
     * Whether waits poll instead of blocking in a probe: needed where a condition can change without
     * a frame (a device window's fence counts, which a start or wait checks for a mismatch).
     */
    private boolean polling;
    /** Set while serving, so that a wait inside it (a receive) does not serve again re-entrantly. */
    private boolean serving;
    private final BooleanSupplier asAgent = this::serveAvailable;

    RmaAgent(Communicator comm, MemorySegment memory, Supplier<IdleStrategy> backOff) {
        this.comm = comm;
        this.backOff = backOff;
        // A provider that knows when ranks are gone gets polled, so that a wait whose peer died fails
        // (its blocking ANY_SOURCE probe fails only once every peer is gone).
        this.liveness = comm instanceof PeerLiveness l ? l : null;
        this.polling = liveness != null;
        this.memory = memory;
        int n = comm.size();
        this.fences = new long[n];
        this.posts = new long[n];
        this.completes = new long[n];
        this.frees = new long[n];
        this.repliesOwed = new int[n];
        this.locks = new TargetLocks(n);
        ProgressAgents.register(asAgent);
    }

    void pollWhileWaiting() {
        polling = true;
    }

    /** A ticket for a reply from {@code target} whose data (if any) goes to {@code destination}. */
    int expect(int target, MemorySegment destination) {
        int ticket = nextTicket++;
        awaited.put(ticket, destination == null ? NO_DATA : destination);
        repliesOwed[target]++;
        return ticket;
    }

    /** The number of tickets handed out so far (the next one's number). */
    int ticketsIssued() {
        return nextTicket;
    }

    /** Whether {@code target} owes this rank a reply. */
    boolean owesReply(int target) {
        return repliesOwed[target] > 0;
    }

    boolean answered(int ticket) {
        return !awaited.containsKey(ticket);
    }

    /** Whether every reply this rank waits for has come. */
    boolean noneAwaited() {
        return awaited.isEmpty();
    }

    void send(int dest, RmaFrame frame) {
        MemorySegment bytes = frame.bytes();
        sends.add(comm.isend(bytes, bytes.byteSize(), Datatype.BYTE, dest, TAG));
        reapSends();
    }

    /** Serves every frame that has arrived; returns whether there was one. */
    boolean serveAvailable() {
        if (serving) {
            return false;
        }
        serving = true;
        try {
            boolean served = false;
            Optional<Message> m;
            while ((m = comm.improbe(Communicator.ANY_SOURCE, TAG)).isPresent()) {
                receive(m.get());
                served = true;
            }
            reapSends();
            denyLocksOfGoneHolders();
            return served;
        } finally {
            serving = false;
        }
    }

    /**
     * Serves frames until {@code done} holds, blocking while none arrives (every condition a window
     * waits for is a frame's arrival); {@code check} runs before each wait and throws on a mismatch.
     * A polling wait fails if a rank that {@code owes} a frame to it is gone (a blocking probe
     * fails by itself when no rank is left to send).
     */
    void awaitUntil(BooleanSupplier done, IntPredicate owes, Runnable check) {
        boolean outer = !serving;
        serving = true;
        try {
            IdleStrategy idle = null;
            while (true) {
                check.run();
                if (done.getAsBoolean()) {
                    return;
                }
                if (!polling) {
                    receive(comm.mprobe(Communicator.ANY_SOURCE, TAG));
                    continue;
                }
                Optional<Message> m = comm.improbe(Communicator.ANY_SOURCE, TAG);
                if (m.isEmpty()) {
                    // Liveness only when idle, and judged before a second probe: what a peer sent before it ended comes first.
                    LockstepException gone = goneAmong(owes);
                    m = comm.improbe(Communicator.ANY_SOURCE, TAG);
                    if (m.isEmpty() && gone != null) {
                        check.run(); // a peer that failed a mismatch and ended: the mismatch is the error to report
                        throw gone;
                    }
                }
                if (m.isPresent()) {
                    receive(m.get());
                    continue;
                }
                denyLocksOfGoneHolders();
                idle = idle == null ? backOff.get() : idle;
                idle.idle();
            }
        } finally {
            serving = !outer;
        }
    }

    /** The error of the first rank that {@code owes} a frame and is gone, or null. */
    LockstepException goneAmong(IntPredicate owes) {
        if (liveness == null) {
            return null;
        }
        for (int r = 0; r < frees.length; r++) {
            if (owes.test(r)) {
                try {
                    liveness.failIfGone(r);
                } catch (LockstepException e) {
                    return e;
                }
            }
        }
        return null;
    }

    /**
     * Lock requests queued here behind a holder that has gone would wait for ever: each is answered
     * with a denial naming that holder. The lock stays held (the gone rank's accesses may be half done).
     */
    private void denyLocksOfGoneHolders() {
        if (liveness == null || !locks.hasWaiting()) {
            return;
        }
        int holder = locks.holderAmong(r -> goneAmong(x -> x == r) != null);
        if (holder >= 0) {
            for (TargetLocks.Request r : locks.denyWaiting()) {
                send(r.origin(), RmaFrame.of(RmaFrame.Kind.REPLY, r.ticket(), 0, 0, 0).withArgument(holder + 1));
            }
        }
    }

    /** Fails with PROC_FAILED if the lock request {@code ticket} to {@code target} was denied because its holder had gone. */
    void failIfDenied(int ticket, int target) {
        Integer holder = denied.remove(ticket);
        if (holder != null) {
            throw new ProcessFailedException(ErrorClass.PROC_FAILED, holder, "rank " + comm.rank() + ": lock of rank " + target
                    + "'s window part cannot be granted: rank " + holder + ", which holds it, has failed or ended");
        }
    }

    /** This rank's fence {@code epoch} is over: serves the accesses of the next epoch that came early. */
    void fenceOver(long epoch) {
        fencesOver = epoch;
        while (!early.isEmpty() && early.peekFirst().epoch() <= epoch) {
            EarlyAccess a = early.pollFirst();
            apply(a.source(), a.frame());
        }
    }

    /** Completes this rank's sends and stops serving from other waits. */
    void close() {
        completeSends();
        ProgressAgents.unregister(asAgent);
    }

    /**
     * Waits until every frame this rank sent has left it (is in its receiver's mailbox or received).
     * A wait may serve (this rank's progress agents, or a provider's helper while this thread is
     * blocked in a native wait), which reaps and adds sends: the list is read afresh after each.
     */
    void completeSends() {
        while (!sends.isEmpty()) {
            Request r = sends.getFirst();
            r.await();
            sends.remove(r);
        }
    }

    /** Receives every frame that has arrived, even inside {@link #awaitUntil} (whose checks need the latest counts). */
    void drain() {
        Optional<Message> m;
        while ((m = comm.improbe(Communicator.ANY_SOURCE, TAG)).isPresent()) {
            receive(m.get());
        }
    }

    private void reapSends() {
        for (Iterator<Request> i = sends.iterator(); i.hasNext();) {
            if (i.next().isComplete()) {
                i.remove();
            }
        }
    }

    private void receive(Message message) {
        MemorySegment bytes = MemorySegment.ofArray(new byte[(int) message.status().byteCount()]);
        comm.mrecv(bytes, bytes.byteSize(), Datatype.BYTE, message);
        dispatch(message.status().source(), RmaFrame.read(bytes));
    }

    private void dispatch(int source, RmaFrame f) {
        if (fences[source] > fencesOver && f.kind().isAccess()) {
            early.addLast(new EarlyAccess(source, fences[source], f));
        } else {
            apply(source, f);
        }
    }

    private void apply(int source, RmaFrame f) {
        switch (f.kind()) {
            case PUT -> MemorySegment.copy(f.payload(), 0, memory, f.offset(), f.length());
            case GET -> reply(source, f.ticket(), memory.asSlice(f.offset(), f.length()));
            case ACCUMULATE -> accumulate(source, f);
            case COMPARE_AND_SWAP -> compareAndSwap(source, f);
            case LOCK -> {
                TargetLocks.Request r = new TargetLocks.Request(source, LockType.values()[f.argument()], f.ticket());
                if (locks.acquire(r)) {
                    reply(source, f.ticket(), NO_DATA);
                }
            }
            case UNLOCK -> {
                for (TargetLocks.Request granted : locks.release(source)) {
                    reply(granted.origin(), granted.ticket(), NO_DATA);
                }
                reply(source, f.ticket(), NO_DATA);
            }
            case FLUSH -> reply(source, f.ticket(), NO_DATA);
            case FENCE -> fences[source]++;
            case POST -> posts[source]++;
            case COMPLETE -> completes[source]++;
            case FREE -> frees[source]++;
            case REPLY -> {
                MemorySegment destination = awaited.remove(f.ticket());
                if (destination != null) {
                    repliesOwed[source]--;
                }
                if (f.argument() > 0) {
                    denied.put(f.ticket(), f.argument() - 1);
                }
                if (destination != null && destination.byteSize() > 0) {
                    MemorySegment.copy(f.payload(), 0, destination, 0, destination.byteSize());
                }
            }
        }
    }

    private void accumulate(int source, RmaFrame f) {
        MemorySegment target = memory.asSlice(f.offset(), f.length());
        if (f.ticket() >= 0) {
            reply(source, f.ticket(), target);
        }
        Datatype element = f.element();
        Op op = f.op();
        op.apply(f.payload(), target, f.length() / element.size(), element);
    }

    private void compareAndSwap(int source, RmaFrame f) {
        long n = f.length();
        MemorySegment target = memory.asSlice(f.offset(), n);
        reply(source, f.ticket(), target);
        MemorySegment payload = f.payload();
        if (payload.asSlice(n, n).mismatch(target) == -1) {
            MemorySegment.copy(payload, 0, target, 0, n);
        }
    }

    /** Sends {@code data} (copied now) to {@code origin}'s wait {@code ticket}. */
    private void reply(int origin, int ticket, MemorySegment data) {
        RmaFrame r = RmaFrame.of(RmaFrame.Kind.REPLY, ticket, 0, data.byteSize(), data.byteSize());
        MemorySegment.copy(data, 0, r.payload(), 0, data.byteSize());
        send(origin, r);
    }
}
