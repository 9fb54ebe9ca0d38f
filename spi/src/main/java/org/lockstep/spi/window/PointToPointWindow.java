package org.lockstep.spi.window;

import java.lang.foreign.MemorySegment;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.spi.messaging.CompletedRequest;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * The default window of every provider: one-sided calls as messages of {@link RmaAgent}'s protocol
 * on a private duplicate of the communicator. Accesses are sent at once; the closing calls wait for
 * what closes the epoch at each side:
 * <ul>
 * <li>fence: every rank sends every rank a fence frame after its accesses and waits for one from
 *     each, serving meanwhile; then its part has every access of the epoch, and its gets are filled;
 * <li>post / start / complete / wait: post sends a post frame to each origin, start waits for
 *     them; complete sends a complete frame to each target (after the accesses) and waits for its
 *     own gets, wait waits for the complete frames;
 * <li>lock / unlock / flush: a request the target's agent grants (in arrival order, exclusive or
 *     shared) and acknowledges.
 * </ul>
 * A rank that meets a fence with post or complete frames (or a start or wait with a fence) fails
 * with {@code RMA_SYNC} instead of waiting for ever: frames of one pair arrive in order, so a
 * frame of the other kind where this one is due shows the peer called something else.
 *
 * <p>A provider whose ranks share memory extends it, moving data and taking locks in that memory
 * and keeping the frames for fence, post-start-complete-wait and free.
 */
public class PointToPointWindow extends AbstractWindow {
    private final Communicator owner;
    private final Communicator comm;
    private final RmaAgent agent;
    private final Supplier<IdleStrategy> backOff;
    private final MemorySegment memory;
    /** Whether the memory is the window's, given back by {@link #implFree}. */
    private final boolean ownsMemory;
    private long fencesDone;
    private final long[] postsTaken;
    private final long[] completesTaken;

    /**
     * Collective over {@code owner}: a window over {@code memory} on a private duplicate of
     * {@code owner}; the memory is given back to {@code owner} at free if {@code ownsMemory}.
     */
    protected PointToPointWindow(Communicator owner, MemorySegment memory, int dispUnit, boolean ownsMemory) {
        this(owner, memory, dispUnit, ownsMemory, IdleStrategy::new);
    }

    /** As above, its polling waits backing off as {@code backOff}'s strategies do (the provider's policy for its host). */
    protected PointToPointWindow(Communicator owner, MemorySegment memory, int dispUnit, boolean ownsMemory,
                                 Supplier<IdleStrategy> backOff) {
        Communicator comm = owner.dup();
        super(comm, memory, dispUnit, WindowExtents.exchange(comm, memory.byteSize(), dispUnit));
        this.owner = owner;
        this.comm = comm;
        this.ownsMemory = ownsMemory;
        this.memory = memory;
        this.backOff = backOff;
        this.agent = new RmaAgent(comm, memory, backOff);
        this.postsTaken = new long[comm.size()];
        this.completesTaken = new long[comm.size()];
    }

    /** A back-off for a subclass's own polling wait. */
    protected final IdleStrategy newIdleStrategy() {
        return backOff.get();
    }

    /** The communicator the window was made on. */
    protected final Communicator owner() {
        return owner;
    }

    /** The window's private communicator (its ranks are the window's). */
    protected final Communicator comm() {
        return comm;
    }

    /** Makes this window's waits poll rather than block for a frame: for a subclass whose fence counts are not frames. */
    protected final void pollWhileWaiting() {
        agent.pollWhileWaiting();
    }

    /** Serves the synchronisation and access frames that have arrived (for a subclass's own waits). */
    protected final void serve() {
        agent.serveAvailable();
    }

    @Override
    protected void implPut(int target, long byteOffset, MemorySegment data) {
        RmaFrame f = RmaFrame.of(RmaFrame.Kind.PUT, -1, byteOffset, data.byteSize(), data.byteSize());
        MemorySegment.copy(data, 0, f.payload(), 0, data.byteSize());
        agent.send(target, f);
    }

    @Override
    protected void implGet(int target, long byteOffset, MemorySegment destination) {
        agent.send(target, RmaFrame.of(RmaFrame.Kind.GET, agent.expect(target, destination), byteOffset, destination.byteSize(), 0));
    }

    @Override
    protected void implAccumulate(int target, long byteOffset, MemorySegment data, Datatype element, Op op, MemorySegment result) {
        int ticket = result == null ? -1 : agent.expect(target, result);
        RmaFrame f = RmaFrame.of(RmaFrame.Kind.ACCUMULATE, ticket, byteOffset, data.byteSize(), data.byteSize()).withElement(element, op);
        MemorySegment.copy(data, 0, f.payload(), 0, data.byteSize());
        agent.send(target, f);
    }

    @Override
    protected void implCompareAndSwap(int target, long byteOffset, MemorySegment origin, MemorySegment compare, MemorySegment result) {
        long n = origin.byteSize();
        RmaFrame f = RmaFrame.of(RmaFrame.Kind.COMPARE_AND_SWAP, agent.expect(target, result), byteOffset, n, 2 * n);
        MemorySegment.copy(origin, 0, f.payload(), 0, n);
        MemorySegment.copy(compare, 0, f.payload(), n, n);
        agent.send(target, f);
    }

    @Override
    protected void implFence() {
        long epoch = nextFenceEpoch();
        for (int r = 0; r < comm.size(); r++) {
            agent.send(r, RmaFrame.of(RmaFrame.Kind.FENCE, -1, 0, 0, 0));
        }
        agent.awaitUntil(() -> all(r -> agent.fences[r] >= epoch) && agent.noneAwaited(),
                r -> agent.fences[r] < epoch || agent.owesReply(r), () -> checkFenceMatched(epoch));
        agent.fenceOver(epoch);
    }

    /**
     * With NOPRECEDE no access of the closing epoch is waited for; the fence frames still go out, and
     * each target holds back the next epoch's accesses until its own fence is over ({@link RmaAgent}),
     * so nothing reaches a part before its owner's stores preceding the fence. A mismatch shows at the
     * next full fence.
     */
    @Override
    protected void implFence(boolean noPrecede, boolean noSucceed) {
        if (!noPrecede) {
            implFence();
            return;
        }
        long epoch = nextFenceEpoch();
        for (int r = 0; r < comm.size(); r++) {
            agent.send(r, RmaFrame.of(RmaFrame.Kind.FENCE, -1, 0, 0, 0));
        }
        agent.fenceOver(epoch);
    }

    /** Waits until every frame this rank sent has left it: a subclass's fence publishes its count only after them. */
    protected final void completeFrames() {
        agent.completeSends();
    }

    /** The number of this rank's fences, this one included (a subclass with fences of its own). */
    protected final long nextFenceEpoch() {
        return ++fencesDone;
    }

    /** How many fences rank {@code r} has made, as far as this rank knows (by default: its fence frames received). */
    protected long fencesSeen(int r) {
        return agent.fences[r];
    }

    /** Fails with RMA_SYNC if a rank that has not reached fence {@code epoch} sent a post or complete this rank has not taken. */
    protected final void checkFenceMatched(long epoch) {
        for (int r = 0; r < comm.size(); r++) {
            if (fencesSeen(r) < epoch && (agent.posts[r] > postsTaken[r] || agent.completes[r] > completesTaken[r])) {
                throw Epochs.sync("rank " + r + " called post or complete where rank " + rank() + " called fence");
            }
            if (fencesSeen(r) < epoch && agent.frees[r] > 0) {
                throw Epochs.sync("rank " + r + " freed the window where rank " + rank() + " called fence");
            }
        }
    }

    @Override
    protected void implPost(int[] origins) {
        for (int r : origins) {
            agent.send(r, RmaFrame.of(RmaFrame.Kind.POST, -1, 0, 0, 0));
        }
    }

    @Override
    protected void implStart(int[] targets) {
        IntPredicate posted = r -> agent.posts[r] > postsTaken[r];
        agent.awaitUntil(() -> allOf(targets, posted), owing(targets, posted), () -> checkNoFence(targets, "start", posted));
        for (int r : targets) {
            postsTaken[r]++;
        }
    }

    /** With NOCHECK the posts are there already, or on their way in order before anything this epoch asks back: counted, not awaited. */
    @Override
    protected void implStart(int[] targets, boolean noCheck) {
        if (!noCheck) {
            implStart(targets);
            return;
        }
        for (int r : targets) {
            postsTaken[r]++;
        }
    }

    @Override
    protected void implComplete(int[] targets) {
        for (int r : targets) {
            agent.send(r, RmaFrame.of(RmaFrame.Kind.COMPLETE, -1, 0, 0, 0));
        }
        agent.awaitUntil(agent::noneAwaited, agent::owesReply, () -> { });
    }

    @Override
    protected void implWaitExposure(int[] origins) {
        IntPredicate completed = r -> agent.completes[r] > completesTaken[r];
        agent.awaitUntil(() -> allOf(origins, completed), owing(origins, completed), () -> checkNoFence(origins, "wait", completed));
        for (int r : origins) {
            completesTaken[r]++;
        }
    }

    @Override
    protected void implLock(LockType type, int target) {
        request(RmaFrame.Kind.LOCK, target, type.ordinal());
    }

    @Override
    protected void implUnlock(int target) {
        request(RmaFrame.Kind.UNLOCK, target, 0);
    }

    /** With NOCHECK nothing is asked of the target; the unlock then only flushes. */
    @Override
    protected void implLock(LockType type, int target, boolean noCheck) {
        if (!noCheck) {
            implLock(type, target);
        }
    }

    @Override
    protected void implUnlock(int target, boolean noCheck) {
        if (noCheck) {
            implFlush(target);
        } else {
            implUnlock(target);
        }
    }

    @Override
    protected void implFlush(int target) {
        request(RmaFrame.Kind.FLUSH, target, 0);
    }

    /** Puts and accumulates left with their frames; what remains locally is every reply {@code target} owes (gets, fetches). */
    @Override
    protected void implFlushLocal(int target) {
        agent.awaitUntil(() -> !agent.owesReply(target), r -> r == target, () -> { });
    }

    /** Puts and accumulates are complete here once sent; a get or fetch once its reply is in (the last one covers the others). */
    @Override
    protected Request implRequest(int target, Runnable access) {
        int first = agent.ticketsIssued();
        access.run();
        int last = agent.ticketsIssued() - 1;
        if (last < first || agent.answered(last)) {
            return CompletedRequest.of(Status.empty());
        }
        return new ReplyRequest(agent, target, last);
    }

    @Override
    protected void implFree() {
        for (int r = 0; r < comm.size(); r++) {
            agent.send(r, RmaFrame.of(RmaFrame.Kind.FREE, -1, 0, 0, 0));
        }
        agent.awaitUntil(() -> all(r -> agent.frees[r] > 0), r -> agent.frees[r] == 0, () -> { });
        agent.close();
        comm.close();
        implRelease();
    }

    /** Gives the memory back once every rank is done with the window: to the communicator if the window owns it. */
    protected void implRelease() {
        if (ownsMemory) {
            owner.free(memory);
        }
    }

    /** Sends a request to {@code target} and serves until its answer comes. */
    private void request(RmaFrame.Kind kind, int target, int argument) {
        int ticket = agent.expect(target, null);
        agent.send(target, RmaFrame.of(kind, ticket, 0, 0, 0).withArgument(argument));
        agent.awaitUntil(() -> agent.answered(ticket), r -> r == target, () -> { });
        agent.failIfDenied(ticket, target);
    }

    /** Fails with RMA_SYNC if a peer whose frame {@code call} waits for made a fence this rank has not made instead. */
    private void checkNoFence(int[] peers, String call, IntPredicate arrived) {
        for (int r : peers) {
            // the fence count first: frames a peer sent before its fence are here once the count shows it
            if (fencesSeen(r) > fencesDone && !arrived.test(r)) {
                agent.drain();
            }
            if (fencesSeen(r) > fencesDone && !arrived.test(r)) {
                throw Epochs.sync("rank " + r + " called fence where rank " + rank() + " called " + call);
            }
            if (agent.frees[r] > 0 && !arrived.test(r)) {
                throw Epochs.sync("rank " + r + " freed the window where rank " + rank() + " called " + call);
            }
        }
    }

    /** The ranks among {@code ranks} whose frame has not {@code arrived}. */
    private static IntPredicate owing(int[] ranks, IntPredicate arrived) {
        return r -> !arrived.test(r) && contains(ranks, r);
    }

    private static boolean contains(int[] ranks, int r) {
        for (int x : ranks) {
            if (x == r) {
                return true;
            }
        }
        return false;
    }

    /**
     * For a subclass's own polling waits: the {@code PROC_FAILED} error if rank {@code r}, whose step
     * the wait needs, has failed or finished, else null. Judge it before looking for the step, and
     * throw it only if the step is still missing: a rank may take its step and then end.
     */
    protected final LockstepException goneError(int r) {
        return agent.goneAmong(x -> x == r);
    }

    private boolean all(IntPredicate p) {
        for (int r = 0; r < comm.size(); r++) {
            if (!p.test(r)) {
                return false;
            }
        }
        return true;
    }

    private static boolean allOf(int[] ranks, IntPredicate p) {
        for (int r : ranks) {
            if (!p.test(r)) {
                return false;
            }
        }
        return true;
    }
}
