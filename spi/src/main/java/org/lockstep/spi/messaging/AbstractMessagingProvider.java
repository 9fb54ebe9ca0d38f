package org.lockstep.spi.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.lockstep.api.AttachedWorld;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;

/**
 * Base class of messaging providers: runs a program on ranks that are platform threads of this
 * JVM over the provider's {@link ThreadWorld}, reports a rank that throws to the others as a
 * failed process, and gathers the failures into one exception.
 */
public abstract class AbstractMessagingProvider implements LockstepProvider, AttachableProvider {

    /** Sets up a world of {@code options.ranks()} ranks (for example formats a device for them). */
    protected abstract ThreadWorld openThreadWorld(JobOptions options);

    /**
     * Joins this process to the launcher's world as rank {@code launch.rank()}; the default says
     * the provider has no multi-process mode.
     */
    protected AttachedRank attachRank(JobOptions options, LaunchEnvironment launch) {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, "provider " + name() + " cannot run separate processes");
    }

    /** Joins this process to {@code launch}'s world for a provider that builds on this one ({@link AttachableProvider}). */
    @Override
    public final AttachedRank attach(JobOptions options, LaunchEnvironment launch) {
        return attachRank(options, launch);
    }

    @Override
    public void runAttached(JobOptions options, LaunchEnvironment launch, RankProgram program) {
        AttachedRank rank = attachRank(options, launch);
        try {
            program.run(rank.communicator());
        } catch (Throwable t) {
            try {
                rank.failed(t);
            } catch (RuntimeException cleanup) {
                t.addSuppressed(cleanup); // the program's own failure is the one to report
            }
            if (t instanceof RuntimeException e) {
                throw e;
            }
            if (t instanceof Error e) {
                throw e;
            }
            throw new LockstepException(ErrorClass.OTHER, "rank " + launch.rank() + " failed: " + t, t);
        }
        rank.close();
    }

    /** The rank from {@link #attachRank}, handed to the calling thread without a keeper thread. */
    @Override
    public AttachedWorld attachWorld(JobOptions options, LaunchEnvironment launch) {
        AttachedRank rank = attachRank(options, launch);
        return new AttachedWorld() {
            @Override
            public Communicator world() {
                return rank.communicator();
            }

            @Override
            public void fail(Throwable cause) {
                rank.failed(cause);
            }

            @Override
            public void close() {
                rank.close();
            }
        };
    }

    @Override
    public void runInThreads(JobOptions options, RankProgram program) {
        int ranks = options.ranks();
        AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(ranks);
        try (ThreadWorld world = openThreadWorld(options)) {
            List<Thread> threads = new ArrayList<>(ranks);
            for (int r = 0; r < ranks; r++) {
                int rank = r;
                threads.add(Thread.ofPlatform().name("lockstep-rank-" + rank).unstarted(() -> {
                    try {
                        program.run(world.communicator(rank));
                        world.rankFinished(rank);
                    } catch (Throwable t) {
                        failures.set(rank, t);
                        try {
                            world.rankFailed(rank, t);
                        } catch (RuntimeException cleanup) {
                            // e.g. the device is gone (a power loss): reported with the rank's failure, not as an uncaught trace
                            t.addSuppressed(cleanup);
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            List<Integer> stillRunning = joinAll(threads);
            if (!stillRunning.isEmpty()) {
                throw new LockstepException(ErrorClass.OTHER, "interrupted while ranks ran; ranks " + stillRunning
                        + " did not stop within " + RANK_STOP_WAIT.toSeconds() + " s of the interrupt");
            }
        }
        LockstepException summary = null;
        for (int r = 0; r < ranks; r++) {
            Throwable t = failures.get(r);
            if (t == null) {
                continue;
            }
            if (summary == null) {
                ErrorClass errorClass = t instanceof LockstepException le ? le.errorClass() : ErrorClass.OTHER;
                summary = new LockstepException(errorClass, "rank " + r + " of " + ranks + " failed: " + t, t);
            } else {
                summary.addSuppressed(new LockstepException(ErrorClass.OTHER, "rank " + r + " failed: " + t, t));
            }
        }
        if (summary != null) {
            throw summary;
        }
    }

    /** How long an interrupted job waits for its rank threads to end after passing the interrupt on. */
    private static final java.time.Duration RANK_STOP_WAIT = java.time.Duration.ofSeconds(10);

    /**
     * Waits for every rank thread. An interrupt of the caller (a test's timeout, a cancelled task) is
     * passed on to the ranks, whose waits end on it where they can, and the ranks get
     * {@link #RANK_STOP_WAIT} to end; the interrupt stays set for the caller. Returns the ranks that
     * had not ended then (none when the job ended by itself).
     */
    private static List<Integer> joinAll(List<Thread> threads) {
        long deadline = 0;
        boolean interrupted = false;
        List<Integer> stillRunning = new ArrayList<>();
        for (int r = 0; r < threads.size(); r++) {
            Thread t = threads.get(r);
            while (t.isAlive()) {
                try {
                    if (!interrupted) {
                        t.join();
                    } else if (!t.join(java.time.Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))
                            && System.nanoTime() - deadline >= 0) {
                        stillRunning.add(r);
                        break;
                    }
                } catch (InterruptedException e) {
                    if (!interrupted) {
                        interrupted = true;
                        deadline = System.nanoTime() + RANK_STOP_WAIT.toNanos();
                        threads.forEach(Thread::interrupt);
                    }
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return stillRunning;
    }
}
