package org.lockstep.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep bench pingpong}: rank 0 sends a message to rank 1, which sends it straight back;
 * the one-way latency is half the round trip, recorded per round trip into an HdrHistogram.
 *
 * <p>Rank 1 only echoes: it receives anything from rank 0 into a buffer of the largest size and
 * sends back as many bytes with the same tag, until a message with tag {@link #STOP} arrives. By
 * default each rank sends from one buffer and receives into another, as the peers' pingpong.c does:
 * no rank touches the bytes it received. With {@code --buffers one} each rank sends from the buffer
 * it received into, so every copy reads lines the other rank has just written (the data is
 * consumed, as by a program that echoes it). Both ranks allocate their buffers once, from the
 * communicator, before the first message.
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true,
        description = "Ping-pong between two ranks (threads of this JVM) over the shared device. Reports median and "
                + "p99 one-way latency (round trip / 2) per size, and bandwidth = size / median one-way latency.")
final class PingPongCommand implements Callable<Integer> {
    private static final int PING = 0;
    private static final int MEASURED = 1;
    private static final int WARM_UP = 2;
    /** Warm-up round trips run in batches this long between two looks at the JIT. */
    private static final long WARM_UP_BATCH_NANOS = 50_000_000L;
    private static final double SIZE_WARM_UP_SECONDS = 0.5;
    private static final int STOP = 3;
    /** Rank 0 asks the echo rank whether its JIT has been quiet since the last question; the answer is one byte. */
    private static final int JIT_QUERY = 4;
    private static final int HISTOGRAM_DIGITS = 3;
    private static final double MEDIAN = 50;
    private static final double P99 = 99;
    private static final double NANOS_PER_MICRO = 1e3;

    @Spec
    CommandSpec spec;

    @Option(names = "--sizes", paramLabel = "SIZES", defaultValue = "8..4m", converter = SizeList.Converter.class,
            description = "Message sizes: a list such as 8,4096,1m and/or doubling ranges such as 8..4m (default: ${DEFAULT-VALUE}).")
    SizeList sizes;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "1000",
            description = "Round trips measured per size (default: ${DEFAULT-VALUE}).")
    long iterations;

    @Option(names = "--warmup-seconds", paramLabel = "S", defaultValue = "2",
            description = "Warm-up before measuring, cycling through all sizes, at least (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Option(names = "--max-warmup-seconds", paramLabel = "S", defaultValue = "60",
            description = "After --warmup-seconds, the warm-up goes on until the JIT of both ranks has been quiet for half a "
                    + "second, for at most this long; each size then warms up the same way on its own, for at most a tenth of "
                    + "it (default: ${DEFAULT-VALUE}). The time it took is printed.")
    double maxWarmupSeconds;

    @Option(names = "--max-seconds-per-size", paramLabel = "S", defaultValue = "10",
            description = "Stop measuring a size after this long even if fewer than N round trips were made (default: ${DEFAULT-VALUE}).")
    double maxSecondsPerSize;

    @Option(names = "--csv", paramLabel = "FILE", description = "Also write the results as CSV to FILE.")
    Path csv;

    @Option(names = "--processes", paramLabel = "N",
            description = "Run the ranks as N >= 2 separate JVM processes over a device file in /dev/shm (started by the "
                    + "launcher) instead of two threads of this JVM; ranks other than 0 and the echo rank wait in a barrier, "
                    + "as the peers' pingpong.c under mpirun -np N (e.g. 4 on 2 cores: oversubscribed).")
    Integer processes;

    @Option(names = "--echo-rank", paramLabel = "R", defaultValue = "1",
            description = "The rank that echoes rank 0's messages (default: ${DEFAULT-VALUE}); in a launched job of more ranks "
                    + "the others only wait, so that one pair of a larger job is measured (e.g. two ranks on different hosts).")
    int echoRank;

    @Option(names = "--bind-to-core", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "With --processes: pin the two processes to cores 0 and 1, as the peers' mpirun --bind-to core "
                    + "(default: ${DEFAULT-VALUE}).")
    boolean bindToCore;

    @Option(names = "--buffers", paramLabel = "two|one", defaultValue = "two",
            description = "two: send from one buffer, receive into another, as the peers' pingpong.c; one: send from the "
                    + "buffer received into (default: ${DEFAULT-VALUE}).")
    BufferUse bufferUse;

    /** Whether a rank sends from the buffer it receives into. */
    enum BufferUse { two, one }

    @Mixin
    JobSettings settings;

    @Override
    public Integer call() {
        if (iterations < 1) {
            throw new ParameterException(spec.commandLine(), "--iterations must be at least 1, got " + iterations);
        }
        if (warmupSeconds < 0 || maxWarmupSeconds < 0 || maxSecondsPerSize <= 0) {
            throw new ParameterException(spec.commandLine(), "--warmup-seconds and --max-warmup-seconds must be >= 0 and "
                    + "--max-seconds-per-size > 0");
        }
        if (processes != null) {
            if (processes < 2) {
                throw new ParameterException(spec.commandLine(), "--processes must be at least 2, got " + processes);
            }
            return launchProcesses();
        }
        PrintWriter out = spec.commandLine().getOut();
        JobOptions options = settings.jobOptions(2, sizedHeap());
        boolean launched = LaunchEnvironment.current().isPresent();
        if (!launched || LaunchEnvironment.current().get().rank() == PING) {
            out.printf("lockstep bench pingpong: %d ranks (%s), provider %s, device %s%n",
                    launched ? LaunchEnvironment.current().get().size() : 2, launched ? "processes" : "threads",
                    JobSettings.providerFor(options).name(), settings.device);
            out.printf("%d round trips per size after at least %.1f s of warm-up (on until the JIT is quiet); one-way latency = "
                    + "round trip / 2; MB = 10^6 bytes%n%n",
                    iterations, warmupSeconds);
            out.flush();
        }

        List<PingPongResult> results = Collections.synchronizedList(new ArrayList<>());
        Lockstep.run(options, world -> {
            if (echoRank < 1 || echoRank >= world.size()) {
                throw new LockstepException(ErrorClass.RANK, "--echo-rank " + echoRank + " is not a rank other than 0 of "
                        + world.size());
            }
            if (world.rank() == PING) {
                results.addAll(ping(world));
                releaseOutsiders(world);
            } else if (world.rank() == echoRank) {
                pong(world);
            } else {
                awaitRelease(world);
            }
        });
        if (results.isEmpty()) {
            return 0; // the echoing rank of a launched run reports nothing
        }
        out.print(PingPongResult.markdownTable(results));
        out.println();
        // One line per size in the key=value form of the peers' pingpong.c, for scripts that compare the two.
        for (PingPongResult r : results) {
            out.println(r.keyValueLine());
        }
        out.flush();
        if (csv != null) {
            writeCsv(results);
        }
        return 0;
    }

    /**
     * A heap partition that holds the two buffers of the largest size (allocated from the device,
     * for single copy) beside the sending space, unless the user chose one.
     */
    private Map<String, String> sizedHeap() {
        String key = "lockstep.mailbox.heapPerRank";
        long needed = 3 * sizes.max() + (2L << 20);
        if (settings.properties.containsKey(key) || needed <= DEFAULT_HEAP_BYTES) {
            return Map.of();
        }
        return Map.of(key, Long.toString(needed));
    }

    /** The mailbox transport's default heap partition (MailboxOptions.DEFAULT_HEAP_PER_RANK, which this module cannot see). */
    private static final long DEFAULT_HEAP_BYTES = 16L << 20;

    /** Runs this same command as launched processes over a mapped device file. */
    private int launchProcesses() {
        return ProcessLauncher.relaunchCommand(spec.commandLine().getParseResult().originalArgs(), processes,
                List.of("-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"), bindToCore);
    }

    private List<PingPongResult> ping(Communicator world) {
        List<Long> list = sizes.sizes();
        Buffers buffers = Buffers.allocate(world, Math.max(1, sizes.max()), bufferUse);
        long warmUpStart = System.nanoTime();
        boolean settled = warmUp(world, buffers, list, warmupSeconds, Math.max(warmupSeconds, maxWarmupSeconds));
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "WARMUP seconds=%.1f jit_quiet=%b%n", (System.nanoTime() - warmUpStart) / 1e9, settled);
        List<PingPongResult> results = new ArrayList<>();
        for (long size : list) {
            // Each size warms up on its own too: after the large sizes, a small one's path is compiled again for it.
            long sizeWarmUpStart = System.nanoTime();
            boolean sizeSettled = warmUp(world, buffers, List.of(size), Math.min(SIZE_WARM_UP_SECONDS, warmupSeconds),
                    Math.max(Math.min(SIZE_WARM_UP_SECONDS, warmupSeconds), maxWarmupSeconds / 10));
            out.printf(Locale.ROOT, "WARMUP size=%d seconds=%.1f jit_quiet=%b%n", size, (System.nanoTime() - sizeWarmUpStart) / 1e9,
                    sizeSettled);
            out.flush();
            Histogram oneWayNanos = new Histogram(HISTOGRAM_DIGITS);
            long deadline = System.nanoTime() + seconds(maxSecondsPerSize);
            long done = 0;
            while (done < iterations && (done == 0 || System.nanoTime() < deadline)) {
                long start = System.nanoTime();
                roundTrip(world, buffers, size, MEASURED);
                oneWayNanos.recordValue((System.nanoTime() - start) / 2);
                done++;
            }
            results.add(new PingPongResult(size, done,
                    oneWayNanos.getValueAtPercentile(MEDIAN) / NANOS_PER_MICRO,
                    oneWayNanos.getValueAtPercentile(P99) / NANOS_PER_MICRO));
        }
        world.send(buffers.out, 0, Datatype.BYTE, echoRank, STOP);
        return results;
    }

    /**
     * Round trips cycling through {@code list} for {@code seconds}, then on until the JIT of both
     * ranks has been quiet over a window ({@link JitSettling}) or {@code maxSeconds} have passed;
     * returns whether both went quiet. By time alone, a size timed after a warm-up through the
     * large ones timed code still being compiled: 8 B one-way 0.56 µs after 2 s cycling through
     * 8 B-4 MiB, 0.19 µs after 2 s of 8 B and 64 B alone, and 0.21 µs (far cores) after 10 s.
     */
    private boolean warmUp(Communicator world, Buffers buffers, List<Long> list, double seconds, double maxSeconds) {
        long start = System.nanoTime();
        long deadline = start + seconds(seconds);
        long limit = start + seconds(maxSeconds);
        JitSettling jit = new JitSettling();
        MemorySegment answer = MemorySegment.ofArray(new byte[1]);
        while (true) {
            long batchEnd = System.nanoTime() + WARM_UP_BATCH_NANOS;
            for (int i = 0; System.nanoTime() < batchEnd; i++) {
                roundTrip(world, buffers, list.get(i % list.size()), WARM_UP);
            }
            long now = System.nanoTime();
            if (now >= limit) {
                return false;
            }
            if (now < deadline) {
                continue;
            }
            byte mine = jit.judge();
            answer.set(ValueLayout.JAVA_BYTE, 0, mine);
            world.send(answer, 1, Datatype.BYTE, echoRank, JIT_QUERY);
            world.recv(answer, 1, Datatype.BYTE, echoRank, JIT_QUERY);
            if (jit.conclude(new byte[] {mine, answer.get(ValueLayout.JAVA_BYTE, 0)}) == JitSettling.Verdict.QUIET) {
                return true;
            }
        }
    }

    /** Ends the wait of the ranks outside the pair. */
    private void releaseOutsiders(Communicator world) {
        for (int r = 1; r < world.size(); r++) {
            if (r != echoRank) {
                world.send(MemorySegment.NULL, 0, Datatype.BYTE, r, STOP);
            }
        }
    }

    /**
     * A rank outside the pair sleeps until the pair is done, looking for rank 0's word once a
     * millisecond: a rank spinning in a wait would take a core from the pair whenever the ranks
     * outnumber the cores (4 ranks of the hybrid provider's two pretend hosts on 2 cores).
     */
    private static void awaitRelease(Communicator world) {
        while (world.iprobe(PING, STOP).isEmpty()) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockstepException(ErrorClass.OTHER, "interrupted while the pair ran", e);
            }
        }
        world.recv(MemorySegment.NULL, 0, Datatype.BYTE, PING, STOP);
    }

    /** A rank's send and receive buffers, from the communicator (device memory: receives into them may take a single copy). */
    private record Buffers(MemorySegment out, MemorySegment in) {
        static Buffers allocate(Communicator world, long bytes, BufferUse use) {
            MemorySegment in = world.allocate(bytes);
            return new Buffers(use == BufferUse.one ? in : world.allocate(bytes), in);
        }
    }

    private void roundTrip(Communicator world, Buffers buffers, long size, int tag) {
        world.send(buffers.out, size, Datatype.BYTE, echoRank, tag);
        Status echo = world.recv(buffers.in, size, Datatype.BYTE, echoRank, tag);
        if (echo.byteCount() != size) {
            throw new LockstepException(ErrorClass.INTERN, "sent " + size + " bytes, the echo has " + echo.byteCount());
        }
    }

    private void pong(Communicator world) {
        long capacity = Math.max(1, sizes.max());
        Buffers buffers = Buffers.allocate(world, capacity, bufferUse);
        MemorySegment answer = MemorySegment.ofArray(new byte[1]);
        JitSettling jit = new JitSettling();
        while (true) {
            Status ping = world.recv(buffers.in, capacity, Datatype.BYTE, PING, Communicator.ANY_TAG);
            if (ping.tag() == STOP) {
                return;
            }
            if (ping.tag() == JIT_QUERY) {
                // the pair's says in the same order on both sides, so both end their windows alike
                byte theirs = buffers.in.get(ValueLayout.JAVA_BYTE, 0);
                byte mine = jit.judge();
                answer.set(ValueLayout.JAVA_BYTE, 0, mine);
                world.send(answer, 1, Datatype.BYTE, PING, JIT_QUERY);
                jit.conclude(new byte[] {theirs, mine});
                continue;
            }
            world.send(buffers.out, ping.byteCount(), Datatype.BYTE, PING, ping.tag());
        }
    }

    private void writeCsv(List<PingPongResult> results) {
        try {
            Files.writeString(csv, PingPongResult.csv(results), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + csv, e);
        }
    }

    private static long seconds(double seconds) {
        return (long) (seconds * TimeUnit.SECONDS.toNanos(1));
    }
}
