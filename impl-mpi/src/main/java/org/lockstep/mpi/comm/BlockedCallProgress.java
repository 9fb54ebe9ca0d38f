package org.lockstep.mpi.comm;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * Runs a rank thread's {@link ProgressAgents} (the targets of its point-to-point windows) from a
 * helper thread while that thread is blocked inside a native MPI call, which cannot run them. MPI's
 * progress rule has a target progress inside any of its MPI calls: without this, an origin's
 * unlock waits for ever for a target sitting in {@code MPI_Barrier} (the compat program
 * {@code Windows} at 4 ranks on Open MPI, whose windows over the caller's memory are point-to-point
 * windows). A blocking collective cannot be swapped for its non-blocking form and a polled test
 * instead: the two forms do not match each other (MPI 4.1 §6.12), and the other members may have
 * no window open.
 *
 * <p>The owner and the helper never run the agents at once: the helper runs them only between
 * {@link #block()} and {@link #unblock}, under that call's lock, which {@code unblock} takes before
 * it returns, so each side sees what the other did. The helper calls MPI while the owner is inside
 * it, so this needs {@code MPI_THREAD_MULTIPLE}; at a lower level nothing is served (the thread
 * guard would refuse the helper's calls).
 *
 * <p>It also matches the {@link DeferredReceives} that have receives pending, in the helper while a
 * thread is blocked and in every test of a native request ({@link #progressDeferred}): nothing is
 * posted for them, so a sender's rendezvous would otherwise wait for the receiver's next wait.
 */
final class BlockedCallProgress {
    /** The helper's back-off: a served frame is an origin's wait, so yield briefly, then park (5 µs growing to 100 µs). */
    private static final IdleStrategy.Policy HELPER_IDLE = new IdleStrategy.Policy(0, 100_000, 8);

    private final boolean enabled;
    private final Set<Blocked> blocked = ConcurrentHashMap.newKeySet();
    private final Set<DeferredReceives> deferred = ConcurrentHashMap.newKeySet();
    private Thread helper;

    /** A thread blocked in a native call, whose agents the helper runs meanwhile. */
    static final class Blocked {
        private final BooleanSupplier agents;
        private final ReentrantLock running = new ReentrantLock();
        private volatile boolean over;
        /** What an agent threw on the helper: the owner's call fails with it when it returns. */
        private Throwable failure;

        private Blocked(BooleanSupplier agents) {
            this.agents = agents;
        }
    }

    BlockedCallProgress(boolean threadMultiple) {
        this.enabled = threadMultiple;
    }

    /** Whether receives can be deferred: the helper can match them while a thread is blocked. */
    boolean enabled() {
        return enabled;
    }

    /** {@code queue} has receives pending (or none any more). */
    void deferredPending(DeferredReceives queue, boolean pending) {
        if (pending) {
            deferred.add(queue);
        } else {
            deferred.remove(queue);
        }
    }

    /** Matches the deferred receives of every communicator that has some; whether any completed. */
    boolean progressDeferred() {
        if (deferred.isEmpty()) {
            return false;
        }
        boolean moved = false;
        for (DeferredReceives queue : deferred) {
            moved |= queue.progress();
        }
        return moved;
    }

    /**
     * Before a native call that may block: hands this thread's agents to the helper, if it has any,
     * and has the helper match deferred receives meanwhile (null if there is neither).
     */
    Blocked block() {
        if (!enabled || !ProgressAgents.present() && deferred.isEmpty()) {
            return null;
        }
        Blocked b = new Blocked(ProgressAgents.ofThisThread());
        blocked.add(b);
        LockSupport.unpark(helper());
        return b;
    }

    /** After the call: takes the agents back once the helper is out of them; throws what they threw there. */
    void unblock(Blocked b) {
        if (b == null) {
            return;
        }
        b.over = true;
        b.running.lock();
        b.running.unlock();
        blocked.remove(b);
        switch (b.failure) {
            case null -> { }
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IllegalStateException(b.failure); // agents throw nothing checked
        }
    }

    private synchronized Thread helper() {
        if (helper == null) {
            helper = Thread.ofPlatform().daemon().name("lockstep-mpi-blocked-call-progress").start(this::serve);
        }
        return helper;
    }

    private void serve() {
        IdleStrategy idle = new IdleStrategy(HELPER_IDLE);
        while (true) {
            if (blocked.isEmpty()) {
                idle.reset();
                LockSupport.park(this); // block() unparks after adding: a permit given before this park ends it at once
                continue;
            }
            boolean moved = false;
            for (Blocked b : blocked) {
                if (b.over || !b.running.tryLock()) {
                    continue;
                }
                try {
                    if (!b.over && b.failure == null && b.agents != null) {
                        moved |= b.agents.getAsBoolean();
                    }
                } catch (RuntimeException | Error e) {
                    b.failure = e;
                } finally {
                    b.running.unlock();
                }
            }
            moved |= progressDeferred(); // a deferred receive's failure is its own, kept in it
            idle.idle(moved);
        }
    }
}
