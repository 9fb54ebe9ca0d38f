package org.lockstep.conformance.run;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.conformance.RuleSkipped;

/**
 * One world of a rule in a launched job ({@link LaunchedWorld}): this process runs its rank's body
 * as {@link WorldRunner} runs a thread's, then every process of the job — in the world or not —
 * agrees on how the world ended (each rank's failure and leftovers), so that each process's rule
 * check sees the same result and takes the same path to its next world.
 *
 * <p>A native call cannot be interrupted, so a rank whose world passes its deadline prints its
 * hang report and ends its process ({@value #HUNG_EXIT}); the launcher then ends the job and the
 * kit reports the rule failed with that report.
 */
final class LaunchedRun {
    /** Exit status of a process whose world passed its deadline. */
    static final int HUNG_EXIT = 97;
    private static final String FINISHED = "kit: finished ";
    private static final Duration MEMBER_POLL = Duration.ofMillis(1);
    /** Longest failure text carried to the other processes. */
    private static final int MAX_TEXT = 16 << 10;

    private LaunchedRun() {
    }

    /** What one process says about its rank of a world. */
    private record RankReport(int rank, String failure, boolean consequence, boolean skipped, List<Leftover> leftovers) {
        static final RankReport NONE = new RankReport(-1, "", false, false, List.of());

        byte[] encode() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(rank);
                out.writeUTF(failure);
                out.writeBoolean(consequence);
                out.writeBoolean(skipped);
                out.writeInt(leftovers.size());
                for (Leftover l : leftovers) {
                    out.writeInt(l.rank());
                    out.writeInt(l.source());
                    out.writeInt(l.tag());
                    out.writeLong(l.bytes());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }

        static RankReport decode(byte[] data) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
                int rank = in.readInt();
                String failure = in.readUTF();
                boolean consequence = in.readBoolean();
                boolean skipped = in.readBoolean();
                int n = in.readInt();
                List<Leftover> leftovers = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    leftovers.add(new Leftover(in.readInt(), in.readInt(), in.readInt(), in.readLong()));
                }
                return new RankReport(rank, failure, consequence, skipped, leftovers);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static RunResult run(LaunchedWorld launched, JobOptions options, RunLimits limits, RankBody body) {
        int ranks = options.ranks();
        RunState run = new RunState(ranks, limits, launched.nextSignalFiles());
        long start = System.nanoTime();
        Communicator members = launched.members(ranks);
        RankReport mine = RankReport.NONE;
        Throwable ownFailure = null;
        if (members != null) {
            int me = members.rank();
            Thread watchdog = watchdog(run, limits.deadline(), me);
            try {
                WorldRunner.runRank(run, members, body);
                members.close();
            } catch (Throwable t) {
                ownFailure = t;
                if (!new RankFailure(me, t).isConsequence()) {
                    // The peers' kit waits and recorded calls stop at this; a peer inside a native call may
                    // still pass its deadline before the agreement, so the failure is also said at once.
                    run.signalFiles.abort("rank " + me + " failed: " + RankFailure.describe(t));
                    System.err.println("kit: rank " + me + " of a world of " + ranks + " failed: " + RankFailure.describe(t));
                }
            } finally {
                watchdog.interrupt();
            }
            RankState state = run.states.get(me);
            mine = new RankReport(me, ownFailure == null ? "" : text(ownFailure),
                    ownFailure != null && new RankFailure(me, ownFailure).isConsequence(), ownFailure instanceof RuleSkipped,
                    state.leftovers());
        }
        awaitMembers(run, ranks, members == null ? -1 : members.rank());
        List<RankFailure> failures = new ArrayList<>();
        List<Leftover> leftovers = new ArrayList<>();
        for (byte[] each : launched.allGather(mine.encode())) {
            RankReport report = RankReport.decode(each);
            if (report.rank() < 0) {
                continue;
            }
            if (report.skipped()) {
                throw new RuleSkipped(report.failure());
            }
            if (!report.failure().isEmpty()) {
                Throwable cause = members != null && report.rank() == members.rank() ? ownFailure
                        : new RemoteRankFailure(report.failure(), report.consequence());
                failures.add(new RankFailure(report.rank(), cause));
            }
            leftovers.addAll(report.leftovers());
        }
        failures.sort((a, b) -> Boolean.compare(a.isConsequence(), b.isConsequence()));
        return new RunResult(ranks, Duration.ofNanos(System.nanoTime() - start), List.copyOf(failures), Optional.empty(),
                List.copyOf(leftovers), false);
    }

    /**
     * Waits, sleeping, until every member of the world has left its body, so that no process spins
     * in the agreement's collective meanwhile (an MPI library busy-polls a blocking collective, and
     * the job's processes may outnumber the cores). A member that never leaves ends the job itself.
     */
    private static void awaitMembers(RunState run, int ranks, int me) {
        if (me >= 0) {
            run.signalFiles.raise(FINISHED + me);
        }
        for (int r = 0; r < ranks; r++) {
            while (!run.signalFiles.raised(FINISHED + r)) {
                try {
                    Thread.sleep(MEMBER_POLL);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RunAborted("interrupted while waiting for the world's members");
                }
            }
        }
    }

    private static String text(Throwable t) {
        String s = t instanceof RuleSkipped ? t.getMessage() : RankFailure.describe(t);
        return s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) + "..." : s;
    }

    /** Ends this process with its hang report if its rank is still in the world after {@code deadline}. */
    private static Thread watchdog(RunState run, Duration deadline, int me) {
        return Thread.ofPlatform().daemon().name("kit-launched-watchdog").start(() -> {
            try {
                Thread.sleep(deadline);
            } catch (InterruptedException ended) {
                return;
            }
            HangReport all = WorldRunner.report(run, "the world passed its deadline of " + deadline.toMillis() + " ms");
            System.err.println("kit: rank " + me + " ends its job: " + new HangReport(all.reason(), List.of(all.ranks().get(me))));
            System.err.flush();
            Runtime.getRuntime().halt(HUNG_EXIT);
        });
    }

    /** A rank's failure in another process, as that process described it. */
    static final class RemoteRankFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final boolean consequence;

        RemoteRankFailure(String description, boolean consequence) {
            super(description, null, false, false);
            this.consequence = consequence;
        }

        boolean consequence() {
            return consequence;
        }
    }
}
