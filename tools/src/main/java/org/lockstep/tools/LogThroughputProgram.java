package org.lockstep.tools;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.Request;

/**
 * The program {@code lockstep bench checkpoint --log-throughput} launches (two processes): rank 0
 * streams {@code messages} messages of {@code bytes} to rank 1 with up to {@code window} sends in
 * flight; rank 1 receives them and, when {@code checkpointing} (the job's message log is on),
 * checkpoints every {@code every} messages — the same program with the log off and on. With
 * {@code preposted} rank 1 keeps {@code window} receives posted (messages arrive expected);
 * otherwise it receives one at a time (most arrive before their receive: unexpected). Rank 1
 * times the stream in {@link #WINDOWS} windows and prints {@link #RESULT} with the median rate of
 * the last half: each run is a fresh pair of JVMs, and on a loaded 2-core machine the JIT was
 * still compiling the message path well past the first fifth of 300,000 messages, whose rate alone
 * made runs of one kind differ by 3x (Dec 2026). It also prints every window's rate
 * ({@link #WINDOW_RATES}) and the rate after the first fifth ({@link #AFTER_FIFTH}), the figure it
 * used to print. Arguments: {@code messages bytes window every checkpointing preposted}.
 */
public final class LogThroughputProgram {
    /** Printed by rank 1, followed by the messages per second of the timed part. */
    static final String RESULT = "log-throughput msgs_per_s=";
    /** Printed by rank 1, followed by each window's messages per second. */
    static final String WINDOW_RATES = "log-throughput windows msgs_per_s=";
    /** Printed by rank 1, followed by the messages per second after the first fifth. */
    static final String AFTER_FIFTH = "log-throughput after_first_fifth msgs_per_s=";
    /** Windows the stream is timed in; the result is the median of the last half's rates. */
    static final int WINDOWS = 10;

    private LogThroughputProgram() {
    }

    public static void main(String[] args) {
        long messages = Long.parseLong(args[0]);
        int bytes = Integer.parseInt(args[1]);
        int window = Integer.parseInt(args[2]);
        int every = Integer.parseInt(args[3]);
        boolean checkpointing = Boolean.parseBoolean(args[4]);
        boolean preposted = Boolean.parseBoolean(args[5]);
        int ranks = LaunchEnvironment.current().map(LaunchEnvironment::size).orElse(2);
        Lockstep.run(JobOptions.ofRanks(ranks), world -> run(world, messages, bytes, window, checkpointing ? every : 0, preposted));
    }

    /** {@code every} 0: no checkpoints. */
    static void run(Communicator world, long messages, int bytes, int window, int every, boolean preposted) {
        Checkpoints checkpoints = world.checkpoints();
        checkpoints.register("log-throughput", MemorySegment.ofArray(new long[8]));
        checkpoints.restore();
        long warmUp = messages / 5;
        MemorySegment buffer = MemorySegment.ofArray(new byte[Math.max(bytes, 1)]);
        world.barrier();
        if (world.rank() == 0) {
            ArrayDeque<Request> inFlight = new ArrayDeque<>();
            for (long i = 0; i < messages; i++) {
                if (inFlight.size() == window) {
                    inFlight.pollFirst().await();
                }
                inFlight.addLast(world.isend(buffer, bytes, Datatype.BYTE, 1, 0));
            }
            while (!inFlight.isEmpty()) {
                inFlight.pollFirst().await();
            }
        } else if (world.rank() == 1) {
            long[] windowEnds = new long[WINDOWS + 1];
            windowEnds[0] = System.nanoTime();
            int windowsDone = 0;
            long fifthStart = 0;
            MemorySegment[] buffers = new MemorySegment[window];
            Request[] posted = new Request[window];
            for (int b = 0; b < window; b++) {
                buffers[b] = MemorySegment.ofArray(new byte[Math.max(bytes, 1)]);
            }
            long postedThrough = 0;
            for (long i = 1; i <= messages; i++) {
                if (preposted) {
                    // keep the receives of messages i .. i + window - 1 posted (not past a checkpoint: none may be pending there)
                    long limit = every > 0 ? Math.min(messages, ((i - 1) / every + 1) * every) : messages;
                    while (postedThrough < Math.min(limit, i + window - 1)) {
                        postedThrough++;
                        int b = (int) (postedThrough % window);
                        posted[b] = world.irecv(buffers[b], bytes, Datatype.BYTE, 0, 0);
                    }
                    posted[(int) (i % window)].await();
                } else {
                    world.recv(buffer, bytes, Datatype.BYTE, 0, 0);
                }
                if (every > 0 && i % every == 0) {
                    checkpoints.checkpoint();
                }
                if (i == warmUp) {
                    fifthStart = System.nanoTime();
                }
                while (windowsDone < WINDOWS && i == messages * (windowsDone + 1) / WINDOWS) {
                    windowEnds[++windowsDone] = System.nanoTime();
                }
            }
            double[] rates = new double[WINDOWS];
            for (int w = 0; w < WINDOWS; w++) {
                long windowMessages = messages * (w + 1) / WINDOWS - messages * w / WINDOWS;
                rates[w] = windowMessages * 1e9 / Math.max(1, windowEnds[w + 1] - windowEnds[w]);
            }
            double[] lastHalf = java.util.Arrays.copyOfRange(rates, WINDOWS / 2, WINDOWS);
            java.util.Arrays.sort(lastHalf);
            System.out.println(WINDOW_RATES + java.util.Arrays.toString(java.util.Arrays.stream(rates).map(Math::round).toArray()));
            System.out.println(AFTER_FIFTH + Math.round((messages - warmUp) * 1e9 / (windowEnds[WINDOWS] - fifthStart)));
            System.out.println(RESULT + Math.round(lastHalf[lastHalf.length / 2]));
            System.out.flush();
        }
        world.barrier();
    }
}
