package org.lockstep.conformance.run;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.conformance.RuleSkipped;

/**
 * Runs one body on every rank of a world of a provider, under a deadline, and reports how it
 * ended. Each rank's calls are recorded; when the deadline passes, or every unfinished rank has
 * been blocked for the stall timeout while no operation completed anywhere, the run is stopped and
 * the report names each rank's last operation and shows its thread's stack. No run can hang the kit.
 *
 * <p>After its body, each rank (with {@link RunLimits#drain()}) sends an end marker with the tag
 * {@link #END_TAG} to every other rank and receives from each, in order, until that rank's marker:
 * by non-overtaking, anything received before the marker is a message that the body never received.
 * Rules therefore never use {@link #END_TAG}.
 *
 * <p>Under a launcher ({@link LaunchedWorld}) this process runs one rank and {@link LaunchedRun}
 * agrees with the others on the result.
 */
public final class WorldRunner {
    /**
     * The tag of the end-of-run marker; rule traffic never uses it. MPI's least {@code MPI_TAG_UB}
     * (§8.1.2), so that every library accepts it (MPICH's bound is 2^28 - 1, not the API's TAG_UB).
     */
    public static final int END_TAG = 32_767;
    /** Receive capacity for leftovers; longer ones are reported as truncated leftovers. */
    private static final int LEFTOVER_CAPACITY = 1 << 16;
    private static final long MONITOR_MILLIS = 10;
    /** How long stopped ranks get to unwind before their threads are given up on. */
    private static final Duration UNWIND_GRACE = Duration.ofSeconds(5);
    private static final int STACK_FRAMES = 30;

    private WorldRunner() {
    }

    /** Runs {@code body} on {@code options.ranks()} ranks of {@code provider}. */
    public static RunResult run(LockstepProvider provider, JobOptions options, RunLimits limits, RankBody body) {
        if (provider instanceof LaunchedWorld launched) {
            return LaunchedRun.run(launched, options, limits, body);
        }
        int ranks = options.ranks();
        RunState run = new RunState(ranks, limits);
        CountDownLatch ended = new CountDownLatch(1);
        Throwable[] providerFailure = new Throwable[1];
        long start = System.nanoTime();
        Thread.ofPlatform().daemon().name("conformance-run-" + provider.name()).start(() -> {
            try {
                provider.runInThreads(options, world -> runRank(run, world, body));
            } catch (Throwable t) {
                providerFailure[0] = t;
            } finally {
                ended.countDown();
            }
        });
        Optional<HangReport> hang = monitor(run, ended, start);
        boolean leaked = false;
        if (hang.isPresent()) {
            run.abort(hang.get().reason());
            interruptRanks(run);
            try {
                leaked = !ended.await(UNWIND_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                leaked = true;
            }
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        if (hang.isEmpty()) {
            skippedByARank(run, ranks);
        }
        List<RankFailure> failures = new ArrayList<>();
        List<Leftover> leftovers = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            RankState s = run.states.get(r);
            if (s.failure != null && hang.isEmpty()) {
                failures.add(new RankFailure(r, s.failure));
            }
            leftovers.addAll(s.leftovers());
        }
        if (hang.isEmpty() && failures.isEmpty() && providerFailure[0] != null) {
            // The provider failed outside every rank body (setting up or tearing down the world).
            failures.add(new RankFailure(-1, providerFailure[0]));
        }
        failures.sort((a, b) -> Boolean.compare(a.isConsequence(), b.isConsequence()));
        return new RunResult(ranks, elapsed, List.copyOf(failures), hang, List.copyOf(leftovers), leaked);
    }

    /** A rule one rank found it cannot run (say, on a device without power-loss emulation) is skipped, as under a launcher. */
    private static void skippedByARank(RunState run, int ranks) {
        for (int r = 0; r < ranks; r++) {
            if (run.states.get(r).failure instanceof RuleSkipped skipped) {
                throw skipped;
            }
        }
    }

    static void runRank(RunState run, Communicator world, RankBody body) throws Exception {
        RankState state = run.states.get(world.rank());
        state.thread = Thread.currentThread();
        RecordingCommunicator comm = new RecordingCommunicator(world, state);
        boolean arrived = false;
        ControlChannel control = null;
        try {
            control = controlChannel(world, state);
            RankContext context = new RankContext(state, comm, control);
            body.run(context);
            if (run.limits.drain()) {
                // Markers go out only once every body is done, so that no body's wildcard receive takes one.
                arrived = true;
                context.rendezvous();
                drain(context, state);
            }
            if (control != null) {
                control.finish();
            }
            state.finished = true;
        } catch (Throwable t) {
            state.failure = t;
            state.finished = true;
            if (t instanceof RuleSkipped) {
                // the rule cannot run here: the peers' kit waits and recorded calls stop now, not at a stall or the deadline
                run.abort("rank " + world.rank() + " skipped the rule: " + t.getMessage());
            }
            if (!arrived && control == null) {
                try {
                    run.rendezvous.arriveAndDeregister();
                } catch (IllegalStateException alreadyArrived) {
                    // stopped inside one of the body's own rendezvous; the run is being aborted anyway
                }
            }
            if (t instanceof Exception e) {
                throw e;
            }
            throw (Error) t;
        }
    }

    /** The kit's channel: a duplicate of the world (collective), or none if the provider cannot duplicate. */
    private static ControlChannel controlChannel(Communicator world, RankState state) {
        RankState.Activity a = state.begin("dup", "the kit's own communicator", true);
        try {
            Communicator control = world.dup();
            state.end(a, "done");
            return new ControlChannel(control, state);
        } catch (org.lockstep.api.LockstepException e) {
            if (e.errorClass() != org.lockstep.api.ErrorClass.UNSUPPORTED_OPERATION) {
                throw e;
            }
            state.end(a, "unsupported: choreography stays inside the JVM");
            return null;
        }
    }

    /** The end-of-run exchange: markers out, then everything up to each peer's marker in. */
    private static void drain(RankContext context, RankState state) {
        Communicator comm = context.comm();
        int me = comm.rank();
        int size = comm.size();
        List<Request> markers = new ArrayList<>();
        for (int peer = 0; peer < size; peer++) {
            if (peer != me) {
                markers.add(comm.isend(MemorySegment.NULL, 0, Datatype.BYTE, peer, END_TAG));
            }
        }
        MemorySegment buffer = MemorySegment.ofArray(new byte[LEFTOVER_CAPACITY]);
        for (int peer = 0; peer < size; peer++) {
            if (peer == me) {
                continue;
            }
            while (true) {
                Status s;
                try {
                    s = comm.recv(buffer, LEFTOVER_CAPACITY, Datatype.BYTE, peer, Communicator.ANY_TAG);
                } catch (TruncationException e) {
                    state.leftover(new Leftover(me, peer, e.status().tag(), e.messageBytes()));
                    continue;
                }
                if (s.tag() == END_TAG) {
                    break;
                }
                state.leftover(new Leftover(me, s.source(), s.tag(), s.byteCount()));
            }
        }
        for (Request r : markers) {
            r.await();
        }
    }

    private static Optional<HangReport> monitor(RunState run, CountDownLatch ended, long start) {
        long deadline = start + run.limits.deadline().toNanos();
        long stallNanos = run.limits.stallTimeout().toNanos();
        long lastProgress = run.progress();
        long lastChange = System.nanoTime();
        try {
            while (!ended.await(MONITOR_MILLIS, TimeUnit.MILLISECONDS)) {
                long now = System.nanoTime();
                long p = run.progress();
                if (p != lastProgress || !allBlocked(run, now, stallNanos)) {
                    lastProgress = p;
                    lastChange = now;
                }
                if (now - deadline > 0) {
                    return Optional.of(report(run, "the run passed its deadline of " + run.limits.deadline().toMillis() + " ms"));
                }
                if (now - lastChange > stallNanos) {
                    return Optional.of(report(run, "deadlock: every unfinished rank was blocked and no operation completed for "
                            + run.limits.stallTimeout().toMillis() + " ms"));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(report(run, "the runner was interrupted"));
        }
        return Optional.empty();
    }

    /**
     * Whether every unfinished rank waits: in a blocking call, or in any call that has taken longer
     * than the stall timeout (a provider call that never returns blocks as surely as a wait).
     */
    private static boolean allBlocked(RunState run, long now, long stallNanos) {
        boolean anyUnfinished = false;
        for (int r = 0; r < run.ranks; r++) {
            RankState s = run.states.get(r);
            if (s.finished) {
                continue;
            }
            anyUnfinished = true;
            RankState.Activity a = s.current;
            if (s.thread == null || a == null || !(a.blocking() || now - a.sinceNanos() > stallNanos)) {
                return false;
            }
        }
        return anyUnfinished;
    }

    static HangReport report(RunState run, String reason) {
        long now = System.nanoTime();
        List<HangReport.RankSnapshot> snapshots = new ArrayList<>();
        for (int r = 0; r < run.ranks; r++) {
            RankState s = run.states.get(r);
            Thread t = s.thread;
            String state;
            if (t == null) {
                state = "never started";
            } else if (s.finished) {
                state = s.failure == null ? "finished" : "failed: " + RankFailure.describe(s.failure);
            } else {
                RankState.Activity a = s.current;
                state = a == null ? "running its body (no call in progress) after " + s.operations() + " operations"
                        : "in " + a.operation() + "(" + a.detail() + ") for " + (now - a.sinceNanos()) / 1_000_000 + " ms";
            }
            snapshots.add(new HangReport.RankSnapshot(r, state, s.recentEvents(), t == null || s.finished ? "" : stack(t)));
        }
        return new HangReport(reason, List.copyOf(snapshots));
    }

    private static String stack(Thread t) {
        StackTraceElement[] frames = t.getStackTrace();
        String shown = Arrays.stream(frames).limit(STACK_FRAMES).map(f -> "    at " + f + "\n").collect(Collectors.joining());
        return "    \"" + t.getName() + "\" " + t.getState() + "\n" + shown
                + (frames.length > STACK_FRAMES ? "    ... " + (frames.length - STACK_FRAMES) + " more\n" : "");
    }

    private static void interruptRanks(RunState run) {
        for (int r = 0; r < run.ranks; r++) {
            Thread t = run.states.get(r).thread;
            if (t != null) {
                t.interrupt();
            }
        }
    }
}
