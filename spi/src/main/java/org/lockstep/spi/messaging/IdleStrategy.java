package org.lockstep.spi.messaging;

import java.util.concurrent.locks.LockSupport;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;

/**
 * Back-off for polling loops, by elapsed time: busy-spin first, then yield, then park in growing
 * steps up to a ceiling, so that a rank waiting long does not burn its core.
 *
 * <p>How long each phase lasts is a {@link Policy}, chosen by whether the ranks of this host fit
 * its cores (as Open MPI's {@code mpi_yield_when_idle}):
 * <ul>
 *   <li>{@linkplain Policy#DEDICATED one core per rank}: spin for long. A yield hands the core to
 *       whatever else runs on the host, and on a busy host that process keeps it for a time slice
 *       (milliseconds); a park costs at least the kernel's timer slack (50 µs). Measured here
 *       (2 processes, {@code lockstep bench collectives}, Dec 2026): the barrier row's median was
 *       27–208 µs with a 20 µs spin followed by yields and parks, 0.3–0.5 µs with this policy,
 *       beside Open MPI's 0.4–0.5 µs in the same session;</li>
 *   <li>{@linkplain Policy#OVERSUBSCRIBED more ranks than cores}: yield after a few pauses, because
 *       the peer that would end the wait may be queued behind this very thread. Measured here
 *       (4 processes on 2 cores, {@code lockstep bench collectives}, 2 Dec 2026): the barrier, bcast,
 *       allreduce and alltoall 8 B rows' medians were 14–17 µs with a 5 µs spin before the first
 *       yield, 0.8–7 µs yielding after 8 pauses (and 4.7–6 µs after a single one). A second
 *       comparison (05:58 UTC, three runs each) put 1 and 8 pauses level and 64 worse: barrier
 *       medians 2.4–4.7 and 2.9–4.4 against 6.6–10 µs.</li>
 * </ul>
 *
 * <p>No futex-style wake-up on the device word (a waiter sleeping in the kernel until the sender
 * wakes it; a park cannot be undone from another process): in C on this host (4 processes on 2
 * cores passing a token through one shared word, load 19, Dec 2026) sleeping in {@code FUTEX_WAIT}
 * after 100 pauses gave medians of 25–27 µs and p99s of 3.3–3.4 ms a round, against 9–12 µs and
 * 1.6–2.7 ms for {@code sched_yield} spinning, which is also what Open MPI and MPICH do when
 * oversubscribed. The millisecond stalls of oversubscribed point-to-point were mostly the JIT's
 * compile backlog on the loaded host, not the hand-off (see {@code lockstep bench collectives}' warm-up).
 */
public final class IdleStrategy {
    /**
     * Job property: how many ranks share this host's cores when that is more than the transport's
     * own ranks here (the hybrid provider's pretend hosts on one machine: every rank of the machine).
     */
    public static final String RANKS_ON_HOST_PROPERTY = "lockstep.ranksOnHost";

    /**
     * How long a wait spins, then yields, before it parks; {@code pausesPerClockRead} pauses pass
     * between two reads of the clock (so at least that many before the first yield).
     */
    public record Policy(long spinNanos, long yieldNanos, int pausesPerClockRead) {
        /** Ranks have a core each: spin up to 50 ms, yield up to 1 s, then park. */
        public static final Policy DEDICATED = new Policy(50_000_000, 1_000_000_000, 64);
        /** More ranks than cores: 8 pauses (a hand-off between cores), yield up to 200 ms, then park. */
        public static final Policy OVERSUBSCRIBED = new Policy(0, 200_000_000, 8);

        /** When the host is unknown: spin 20 µs, yield up to 2 ms, then park. */
        public static final Policy CAUTIOUS = new Policy(20_000, 2_000_000, 64);

        public Policy {
            if (spinNanos < 0 || yieldNanos < spinNanos || pausesPerClockRead < 1) {
                throw new IllegalArgumentException("idle policy needs 0 <= spinNanos <= yieldNanos and pausesPerClockRead >= 1: "
                        + spinNanos + ", " + yieldNanos + ", " + pausesPerClockRead);
            }
        }

        /** The policy for {@code ranksOnThisHost} ranks sharing this host's cores. */
        public static Policy forRanksOnThisHost(int ranksOnThisHost) {
            return ranksOnThisHost <= HOST_CPUS ? DEDICATED : OVERSUBSCRIBED;
        }

        /**
         * The ranks sharing this host's cores: {@code jobRanksHere}, or more if {@link #RANKS_ON_HOST_PROPERTY}
         * says so; a value that is not a positive number is an {@link ErrorClass#ARG} error.
         */
        public static int ranksOnThisHost(JobOptions options, int jobRanksHere) {
            return Math.max(options.positiveIntProperty(RANKS_ON_HOST_PROPERTY, "ranks").orElse(jobRanksHere), jobRanksHere);
        }

        /**
         * The host's online CPUs. Not {@link Runtime#availableProcessors()}: a rank pinned to its
         * own core (as {@code --bind-to-core} does) sees one, and would take itself for oversubscribed.
         */
        static final int HOST_CPUS = hostCpus();

        private static int hostCpus() {
            int available = Runtime.getRuntime().availableProcessors();
            try {
                String online = java.nio.file.Files.readString(java.nio.file.Path.of("/sys/devices/system/cpu/online")).trim();
                int count = 0;
                for (String range : online.split(",")) {
                    String[] ends = range.split("-");
                    count += ends.length == 1 ? 1 : Integer.parseInt(ends[1]) - Integer.parseInt(ends[0]) + 1;
                }
                return Math.max(available, count);
            } catch (java.io.IOException | RuntimeException e) {
                return available;
            }
        }
    }

    private static final long FIRST_PARK_NANOS = 5_000;
    private static final long MAX_PARK_NANOS = 100_000;

    private final long spinNanos;
    private final long yieldNanos;
    /** Rounds between clock reads while spinning: a clock read costs more than a pause. */
    private final int roundsPerClockRead;
    private long idleSince;
    private int rounds;
    private long parkNanos = FIRST_PARK_NANOS;

    /** A back-off with the {@link Policy#CAUTIOUS} phases. */
    public IdleStrategy() {
        this(Policy.CAUTIOUS);
    }

    public IdleStrategy(Policy policy) {
        this.spinNanos = policy.spinNanos();
        this.yieldNanos = policy.yieldNanos();
        this.roundsPerClockRead = policy.pausesPerClockRead();
    }

    /** Call after a round that did nothing. */
    public void idle() {
        if (rounds++ == 0) {
            idleSince = System.nanoTime();
            Thread.onSpinWait();
            return;
        }
        if (rounds < roundsPerClockRead) {
            Thread.onSpinWait();
            return;
        }
        long idleFor = System.nanoTime() - idleSince;
        if (idleFor < spinNanos) {
            rounds = 1; // read the clock again after another batch of pauses
            Thread.onSpinWait();
        } else if (idleFor < yieldNanos) {
            rounds = roundsPerClockRead;
            Thread.yield();
        } else {
            rounds = roundsPerClockRead;
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(MAX_PARK_NANOS, parkNanos * 2);
        }
    }

    /** Call after a round that did something. */
    public void reset() {
        rounds = 0;
        parkNanos = FIRST_PARK_NANOS;
    }

    /** {@link #reset()} if {@code worked}, else {@link #idle()}. */
    public void idle(boolean worked) {
        if (worked) {
            reset();
        } else {
            idle();
        }
    }
}
