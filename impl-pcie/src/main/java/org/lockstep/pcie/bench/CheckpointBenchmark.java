package org.lockstep.pcie.bench;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.pcie.mailbox.MailboxOptions;
import org.lockstep.pcie.mailbox.MailboxThreadWorld;

/**
 * Measures the cost of the message log (a benchmark, not a test, apart from the transport's
 * packages; {@code lockstep bench checkpoint --log-throughput} runs it as this module's main): throughput of a message-heavy two-rank workload with the log on and
 * off, measured alternately in one run so that their ratio is meaningful on a shared machine;
 * checkpoint time against state size; and restart time with messages to replay.
 *
 * <p>Ranks are two threads over one device (emulated, or any device the options name).
 * {@code main} arguments: {@code [messages per round] [rounds] [payload bytes] [device options...]}
 * where device options are {@code key=value} job properties (e.g.
 * {@code lockstep.device.option.persistence=off}).
 */
public final class CheckpointBenchmark {
    private final JobOptions base;
    private final PrintStream out;

    public CheckpointBenchmark(JobOptions base, PrintStream out) {
        this.base = base;
        this.out = out;
    }

    public static void main(String[] args) {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int payload = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        JobOptions options = JobOptions.ofRanks(2).with(MailboxOptions.DEVICE, "emulated").with(MailboxOptions.ASYNC_SLOTS, "0");
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            options = options.with(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        CheckpointBenchmark bench = new CheckpointBenchmark(options, System.out);
        bench.cpuCost(messages, rounds, payload, 1000);
        bench.throughput(messages, rounds, payload, 1000);
        bench.checkpointTimes(new long[] {4 << 10, 64 << 10, 1 << 20, 16 << 20}, 20);
        bench.restartTime(2000, payload, 5);
    }

    /**
     * Throughput (messages per second) of rank 0 streaming {@code messages} messages of
     * {@code payload} bytes to rank 1, log off and on alternately for {@code rounds} rounds; with
     * the log on, rank 1 checkpoints every {@code checkpointEvery} messages. Prints the medians and
     * their ratio; returns {off, on} medians.
     */
    public double[] throughput(int messages, int rounds, int payload, int checkpointEvery) {
        double[] off = new double[rounds];
        double[] on = new double[rounds];
        int warmUpRounds = warmUp(options -> run(options, messages, payload, checkpointEvery));
        out.printf("warm-up: %d rounds of each kind%n", warmUpRounds);
        for (int r = 0; r < rounds; r++) {
            off[r] = run(withLog(false), messages, payload, checkpointEvery);
            on[r] = run(withLog(true), messages, payload, checkpointEvery);
            out.printf("round %d: log off %.0f msg/s, log on %.0f msg/s%n", r + 1, off[r], on[r]);
        }
        double medianOff = median(off);
        double medianOn = median(on);
        double[] paired = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            paired[r] = on[r] / off[r];
        }
        out.printf("paired on/off ratio per round: median %.3f, rounds %s%n", median(paired),
                Arrays.toString(Arrays.stream(paired).map(x -> Math.round(x * 1000) / 1000.0).toArray()));
        out.printf("throughput %d-byte messages: log off %.0f msg/s, log on %.0f msg/s (checkpoint every %d), on/off = %.3f (%.1f %% slower)%n",
                payload, medianOff, medianOn, checkpointEvery, medianOn / medianOff, 100 * (1 - medianOn / medianOff));
        return new double[] {medianOff, medianOn};
    }

    /**
     * CPU time per message of the same stream with both ranks stepped by one thread (isend, then
     * the matching recv), log off and on alternately: on a loaded machine thread CPU time is far
     * steadier than two threads' wall-clock throughput. Prints the medians and the paired ratio;
     * returns {off, on} nanoseconds per message.
     */
    public double[] cpuCost(int messages, int rounds, int payload, int checkpointEvery) {
        double[] off = new double[rounds];
        double[] on = new double[rounds];
        double[] paired = new double[rounds];
        int warmUpRounds = warmUp(options -> stepped(options, messages, payload, checkpointEvery));
        for (int r = 0; r < rounds; r++) {
            off[r] = stepped(withLog(false), messages, payload, checkpointEvery);
            on[r] = stepped(withLog(true), messages, payload, checkpointEvery);
            paired[r] = on[r] / off[r];
        }
        out.printf("cpu per %d-byte message (one thread steps both ranks, after %d warm-up rounds of each kind): log off %.0f ns,"
                        + " log on %.0f ns (checkpoint every %d); paired on/off median %.3f, rounds %s%n", payload, warmUpRounds,
                median(off), median(on), checkpointEvery, median(paired),
                Arrays.toString(Arrays.stream(paired).map(x -> Math.round(x * 1000) / 1000.0).toArray()));
        return new double[] {median(off), median(on)};
    }

    private static double stepped(JobOptions options, int messages, int payload, int checkpointEvery) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options)) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            MemorySegment state = Arena.ofAuto().allocate(64);
            receiver.checkpoints().register("state", state);
            MemorySegment out = Arena.ofAuto().allocate(Math.max(payload, 1));
            MemorySegment in = Arena.ofAuto().allocate(Math.max(payload, 1));
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 1; i <= messages; i++) {
                org.lockstep.api.Request send = sender.isend(out, payload, org.lockstep.api.Datatype.BYTE, 1, 0);
                receiver.recv(in, payload, org.lockstep.api.Datatype.BYTE, 0, 0);
                send.await();
                if (i % checkpointEvery == 0) {
                    receiver.checkpoints().checkpoint();
                }
            }
            return (threads.getCurrentThreadCpuTime() - start) / (double) messages;
        }
    }

    /** Most warm-up rounds of each kind before measuring regardless. */
    private static final int MAX_WARM_UP_ROUNDS = 8;

    /**
     * Runs {@code round} with the log off and on alternately until each kind's last two rounds
     * agree within 10 % (at most {@link #MAX_WARM_UP_ROUNDS}); returns the rounds run. Until then
     * the JIT is still compiling the message path: on this 2-core machine under load (Dec 2026)
     * the first 100,000 messages cost 15-30x the steady state's CPU per message and the next
     * 100,000 up to 5x, and a kind measured while the other was still being compiled looked up to
     * 5x cheaper than it, which was most of the spread between rounds; a quarter round of warm-up
     * left the first measured rounds in that phase.
     */
    private int warmUp(java.util.function.ToDoubleFunction<JobOptions> round) {
        double[] previous = {Double.NaN, Double.NaN};
        for (int rounds = 1; rounds <= MAX_WARM_UP_ROUNDS; rounds++) {
            boolean steady = true;
            for (int kind = 0; kind < 2; kind++) {
                double figure = round.applyAsDouble(withLog(kind == 1));
                steady &= Math.abs(figure - previous[kind]) <= 0.1 * previous[kind];
                previous[kind] = figure;
            }
            if (steady) {
                return rounds;
            }
        }
        return MAX_WARM_UP_ROUNDS;
    }

    private JobOptions withLog(boolean log) {
        return log ? base.with(Checkpoints.ENABLED_PROPERTY, "true") : base;
    }

    private static double run(JobOptions options, int messages, int payload, int checkpointEvery) {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options)) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            MemorySegment state = Arena.ofAuto().allocate(64);
            receiver.checkpoints().register("state", state);
            long start = System.nanoTime();
            CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
                MemorySegment buffer = Arena.ofAuto().allocate(Math.max(payload, 1));
                for (int i = 0; i < messages; i++) {
                    sender.send(buffer, payload, org.lockstep.api.Datatype.BYTE, 1, 0);
                }
            });
            MemorySegment buffer = Arena.ofAuto().allocate(Math.max(payload, 1));
            for (int i = 1; i <= messages; i++) {
                receiver.recv(buffer, payload, org.lockstep.api.Datatype.BYTE, 0, 0);
                if (i % checkpointEvery == 0) {
                    receiver.checkpoints().checkpoint();
                }
            }
            sending.join();
            long nanos = System.nanoTime() - start;
            return messages * 1e9 / nanos;
        }
    }

    /** Median time of a checkpoint of each state size, {@code repeats} times each. Returns microseconds per size. */
    public double[] checkpointTimes(long[] stateBytes, int repeats) {
        double[] micros = new double[stateBytes.length];
        for (int k = 0; k < stateBytes.length; k++) {
            long bytes = stateBytes[k];
            JobOptions options = new JobOptions(1, withLog(true).with(Checkpoints.STATE_BYTES_PROPERTY, Long.toString(bytes + (64 << 10)))
                    .properties());
            try (MailboxThreadWorld world = MailboxThreadWorld.open(options)) {
                Communicator rank = world.communicator(0);
                MemorySegment state = Arena.ofAuto().allocate(bytes, 64);
                state.fill((byte) 7);
                rank.checkpoints().register("state", state);
                double[] times = new double[repeats];
                for (int warmUp = 0; warmUp < 5; warmUp++) {
                    rank.checkpoints().checkpoint();
                }
                for (int r = 0; r < repeats; r++) {
                    long start = System.nanoTime();
                    rank.checkpoints().checkpoint();
                    times[r] = (System.nanoTime() - start) / 1e3;
                }
                micros[k] = median(times);
                out.printf("checkpoint of %d KiB state: %.1f us (median of %d), %.0f MB/s%n", bytes >> 10, micros[k], repeats,
                        bytes / micros[k]);
            }
        }
        return micros;
    }

    /**
     * Restart time of a receiver with {@code retained} logged messages after its checkpoint to
     * replay: the new incarnation's recovery (checkpoint read, log directories scanned, replay
     * queued) and its restore. Returns the median in microseconds.
     */
    public double restartTime(int retained, int payload, int repeats) {
        double[] times = new double[repeats];
        long heap = Math.max(4L << 20, 2L * retained * (payload + 2 * org.lockstep.pcie.layout.LayoutConstants.CACHE_LINE));
        JobOptions options = withLog(true).with(MailboxOptions.SLOTS, "16").with(MailboxOptions.HEAP_PER_RANK, Long.toString(heap))
                .with(Checkpoints.RESTART_ON_FAILURE_PROPERTY, "true");
        for (int r = 0; r < repeats; r++) {
            try (MailboxThreadWorld world = MailboxThreadWorld.open(options)) {
                Communicator sender = world.communicator(0);
                Communicator receiver = world.communicator(1);
                MemorySegment state = Arena.ofAuto().allocate(1 << 16);
                receiver.checkpoints().register("state", state);
                receiver.checkpoints().checkpoint();
                MemorySegment buffer = Arena.ofAuto().allocate(Math.max(payload, 1));
                List<org.lockstep.api.Request> sends = new ArrayList<>();
                for (int i = 0; i < retained; i++) {
                    sends.add(sender.isend(buffer, payload, org.lockstep.api.Datatype.BYTE, 1, 0));
                    receiver.iprobe(0, 0); // drains: the messages wait in the device, retained
                    sender.iprobe(1, 0);
                }
                while (!sends.stream().allMatch(s -> s.test().isPresent())) {
                    receiver.iprobe(0, 0);
                }
                long start = System.nanoTime();
                Communicator again = world.restart(1);
                MemorySegment restored = Arena.ofAuto().allocate(1 << 16);
                again.checkpoints().register("state", restored);
                again.checkpoints().restore();
                times[r] = (System.nanoTime() - start) / 1e3;
                for (int i = 0; i < retained; i++) {
                    again.recv(buffer, payload, org.lockstep.api.Datatype.BYTE, 0, 0);
                }
            }
        }
        double median = median(times);
        out.printf("restart with %d messages to replay and 64 KiB state: %.0f us (median of %d)%n", retained, median, repeats);
        return median;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
