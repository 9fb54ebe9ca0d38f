package org.lockstep.conformance.run;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.lockstep.api.Communicator;

/**
 * What a rank's body gets: its communicator (recorded, and stoppable by the runner), the provider's
 * own communicator for rules that exercise blocking calls, and choreography between the ranks of the
 * run (named signals and a rendezvous), all of which the runner can stop. The choreography travels
 * on a duplicate of the world communicator, so it never meets the rule's traffic; with a provider
 * that cannot duplicate communicators it falls back to synchronisation inside this JVM.
 */
public final class RankContext {
    private static final long POLL_MILLIS = 10;

    private final RankState state;
    private final RecordingCommunicator comm;
    /** The kit's own channel through the provider, or null where the provider cannot duplicate a communicator. */
    private final ControlChannel control;

    RankContext(RankState state, RecordingCommunicator comm, ControlChannel control) {
        this.state = state;
        this.comm = comm;
        this.control = control;
    }

    ControlChannel control() {
        return control;
    }

    public int rank() {
        return comm.rank();
    }

    public int size() {
        return comm.size();
    }

    /** This rank's communicator, recorded by the runner. */
    public Communicator comm() {
        return comm;
    }

    /**
     * The provider's communicator, unrecorded: its blocking calls are the provider's own. A rank
     * stuck in one can be reported but not stopped; use it only where the rule is about those calls.
     */
    public Communicator raw() {
        return comm.raw();
    }

    /** Records a call made on {@link #raw()}, so that a hang report names it; end it with {@link Call#done}. */
    public Call calling(String operation, String detail) {
        return new Call(state, state.begin(operation, detail, true));
    }

    /** Raises the signal {@code name} (once raised it stays raised). */
    public void signal(String name) {
        if (control != null) {
            control.signal(name);
            return;
        }
        state.run().signal(name).countDown();
    }

    /** Waits until some rank raises {@code name}. */
    public void awaitSignal(String name) {
        if (control != null) {
            control.awaitSignal(name);
            return;
        }
        CountDownLatch latch = state.run().signal(name);
        RankState.Activity a = state.begin("await signal", name, true);
        try {
            while (!latch.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                state.checkAborted();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            state.checkAborted();
            throw new RunAborted("interrupted while waiting for signal " + name);
        }
        state.end(a, "raised");
    }

    /**
     * Raises {@code name} for {@link #awaitSignalWithoutProvider}: inside this JVM, with no call into
     * the provider on either side.
     */
    public void signalWithoutProvider(String name) {
        if (state.run().signalFiles != null) {
            state.run().signalFiles.raise(name);
            return;
        }
        state.run().signal(name).countDown();
    }

    /**
     * Waits for {@code name} without calling into the provider meanwhile, as a rank busy computing
     * would: for rules about what a provider must do while its peer makes no calls at all.
     */
    public void awaitSignalWithoutProvider(String name) {
        CountDownLatch latch = state.run().signal(name);
        SignalFiles files = state.run().signalFiles;
        RankState.Activity a = state.begin("await signal (no provider calls)", name, true);
        try {
            while (files != null ? !files.raised(name) : !latch.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                if (files != null) {
                    Thread.sleep(POLL_MILLIS);
                }
                state.checkAborted();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            state.checkAborted();
            throw new RunAborted("interrupted while waiting for signal " + name);
        }
        state.end(a, "raised");
    }

    /** Waits until every rank of the run has called this. */
    public void rendezvous() {
        if (control != null) {
            control.barrier();
            return;
        }
        RankState.Activity a = state.begin("rendezvous", "all ranks", true);
        int phase = state.run().rendezvous.arrive();
        while (true) {
            try {
                state.run().rendezvous.awaitAdvanceInterruptibly(phase, POLL_MILLIS, TimeUnit.MILLISECONDS);
                break;
            } catch (TimeoutException e) {
                state.checkAborted();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                state.checkAborted();
                throw new RunAborted("interrupted at a rendezvous");
            }
        }
        state.end(a, "all arrived");
    }

    /** Throws {@link RunAborted} if the runner has stopped the run. */
    public void checkAborted() {
        state.checkAborted();
    }

    /** A call on the raw communicator in progress. */
    public static final class Call {
        private final RankState state;
        private final RankState.Activity activity;

        private Call(RankState state, RankState.Activity activity) {
            this.state = state;
            this.activity = activity;
        }

        public void done(String outcome) {
            state.end(activity, outcome);
        }
    }
}
