package org.lockstep.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.Op;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep bench collectives}: barrier, bcast, allreduce and alltoall at the sizes of the
 * peers' {@code bench/peers/mpi/collectives.c}, timed the same way: each rank times its own calls, with an untimed
 * barrier between calls; the row is the maximum over ranks of each rank's median (and p99, mean).
 */
@Command(name = "collectives", mixinStandardHelpOptions = true,
        description = "Times barrier, bcast 8 B and 1 MiB, allreduce 8 B and 1 MiB (double sum) and alltoall 8 B and "
                + "64 KiB per rank; reports, per row, the maximum over ranks of each rank's median, p99 and mean.")
final class CollectivesBenchCommand implements Callable<Integer> {
    private static final int CALIBRATION_CALLS = 21;
    private static final int MIN_CALLS = 20;
    private static final int MAX_CALLS = 20_000;
    /** Calls of each row per warm-up batch: short rows, and rows of 64 KiB and more. */
    private static final int WARM_UP_BATCH_SHORT = 200;
    private static final int WARM_UP_BATCH_LONG = 5;

    /** One row: a collective and its message size. */
    record Row(String op, int bytes) {
    }

    static final List<Row> ROWS = List.of(new Row("barrier", 0), new Row("bcast", 8), new Row("bcast", 1 << 20),
            new Row("allreduce", 8), new Row("allreduce", 1 << 20), new Row("alltoall", 8), new Row("alltoall", 1 << 16));

    /** Every op a --row may name: the standard rows' and the non-blocking forms, timed from the start to the end of their wait. */
    static final List<String> OPS = List.of("barrier", "bcast", "allreduce", "alltoall", "ibarrier", "ibcast", "iallreduce",
            "ialltoall", "iallgather", "ireduce");

    @Spec
    CommandSpec spec;

    @Option(names = {"-n", "--ranks"}, paramLabel = "N", defaultValue = "2",
            description = "Ranks as threads of this JVM (default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--processes", paramLabel = "N", description = "Run N separate JVM processes over a /dev/shm device instead.")
    Integer processes;

    @Option(names = "--budget", paramLabel = "SECONDS", defaultValue = "0.4",
            description = "Time spent per row, which sets the number of calls (default: ${DEFAULT-VALUE}).")
    double budget;

    @Option(names = "--warmup-seconds", paramLabel = "S", defaultValue = "2",
            description = "JIT warm-up (all rows, by time) before the rows are calibrated and measured; longer by the factor"
                    + " of ranks to the CPUs a rank may use, when that is above 1 (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Option(names = "--max-warmup-seconds", paramLabel = "S", defaultValue = "90",
            description = "After --warmup-seconds, the warm-up goes on until every rank's JIT has been quiet for half a second,"
                    + " for at most this long (default: ${DEFAULT-VALUE}); the time it took is printed.")
    double maxWarmupSeconds;

    @Option(names = "--row-warmup-seconds", paramLabel = "S", defaultValue = "0.3",
            description = "Each row runs this long before it is calibrated (default: ${DEFAULT-VALUE}).")
    double rowWarmupSeconds;

    @Option(names = "--bind-to-core", negatable = true, defaultValue = "false", fallbackValue = "true",
            description = "With --processes: pin rank r to core r mod cores (default: ${DEFAULT-VALUE}).")
    boolean bindToCore;

    /** Where the bench's buffers live. */
    enum Buffers { device, process }

    @Option(names = "--buffers", paramLabel = "WHERE", defaultValue = "device",
            description = "Buffers allocated from the communicator (device: the MPI_Alloc_mem analogue, which the direct"
                    + " collectives read in place) or in process memory (${COMPLETION-CANDIDATES}; default: ${DEFAULT-VALUE}).")
    Buffers buffers;

    @Option(names = "--row", paramLabel = "OP:BYTES",
            description = "Measure this row instead of the standard ones (repeatable), e.g. --row allreduce:65536; the"
                    + " non-blocking ibarrier, ibcast, iallreduce, ialltoall, iallgather and ireduce are timed from their start"
                    + " to the end of their await.")
    List<String> customRows = new ArrayList<>();

    @Mixin
    JobSettings settings;

    /** The rows to measure, parsed once before any rank runs (a bad --row is a usage error, not a rank's). */
    private List<Row> rows = ROWS;

    List<Row> rows() {
        return rows;
    }

    private List<Row> parseRows() {
        if (customRows.isEmpty()) {
            return ROWS;
        }
        List<String> ops = OPS;
        List<Row> parsed = new ArrayList<>();
        for (String given : customRows) {
            String[] parts = given.split(":");
            long bytes = -1;
            if (parts.length == 2 && ops.contains(parts[0])) {
                try {
                    bytes = new SizeList.SingleSize().convert(parts[1]);
                } catch (RuntimeException e) {
                    bytes = -1;
                }
            }
            if (bytes < 0 || bytes > Integer.MAX_VALUE) {
                throw new ParameterException(spec.commandLine(), "--row " + given + ": expected OP:BYTES with OP one of "
                        + String.join(", ", ops) + " and BYTES a size such as 65536 or 64k");
            }
            parsed.add(new Row(parts[0], (int) bytes));
        }
        return parsed;
    }

    @Override
    public Integer call() {
        rows = parseRows();
        if (processes != null) {
            if (processes < 2) {
                throw new ParameterException(spec.commandLine(), "--processes must be at least 2");
            }
            return launch();
        }
        if (ranks < 2) {
            throw new ParameterException(spec.commandLine(), "-n must be at least 2");
        }
        PrintWriter out = spec.commandLine().getOut();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        JobOptions options = settings.jobOptions(ranks, Map.of());
        Lockstep.run(options, world -> measureAll(world, lines));
        boolean launched = LaunchEnvironment.current().isPresent();
        if (!lines.isEmpty()) {
            out.printf("lockstep bench collectives: %d ranks (%s), provider %s, device %s%n%n", launched
                    ? LaunchEnvironment.current().get().size() : ranks, launched ? "processes" : "threads",
                    JobSettings.providerFor(options).name(), settings.device);
            out.println("| op | bytes | calls | median (µs) | p99 (µs) | mean (µs) |");
            out.println("|---|---:|---:|---:|---:|---:|");
            for (String line : lines) {
                String[] f = line.split(" ");
                out.printf("| %s | %s | %s | %s | %s | %s |%n", value(f[1]), value(f[2]), value(f[4]), value(f[5]), value(f[6]), value(f[7]));
            }
            out.println();
            lines.forEach(out::println);
        }
        out.flush();
        return 0;
    }

    private static String value(String keyValue) {
        return keyValue.substring(keyValue.indexOf('=') + 1);
    }

    private int launch() {
        return ProcessLauncher.relaunchCommand(spec.commandLine().getParseResult().originalArgs(), processes,
                List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"), bindToCore);
    }

    private void measureAll(Communicator world, List<String> lines) {
        long largest = Math.max(1 << 20, (long) (1 << 16) * world.size());
        for (Row row : rows()) {
            largest = Math.max(largest, (long) row.bytes() * (perRank(row) ? world.size() : 1));
        }
        Arena arena = Arena.ofConfined();
        MemorySegment a = buffers == Buffers.device ? world.allocate(largest) : arena.allocate(largest, 64);
        MemorySegment b = buffers == Buffers.device ? world.allocate(largest) : arena.allocate(largest, 64);
        a.fill((byte) 1);
        // Ranks sharing cores share the JIT's compiler threads' time too (a rank bound to one core counts it alone).
        double oversubscription = Math.max(1.0, (double) world.size() / Runtime.getRuntime().availableProcessors());
        long warmUpStart = System.nanoTime();
        boolean settled = warmUp(world, rows(), warmupSeconds * oversubscription, Math.max(warmupSeconds * oversubscription, maxWarmupSeconds),
                a, b);
        if (world.rank() == 0) {
            PrintWriter out = spec.commandLine().getOut();
            out.printf(Locale.ROOT, "WARMUP seconds=%.1f jit_quiet=%b jvm_uptime_s=%.1f%n", (System.nanoTime() - warmUpStart) / 1e9,
                    settled, java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
            out.flush();
        }
        for (Row row : rows()) {
            // The row alone first: its first calls after another row's run slow (the JIT recompiles for it).
            warmUp(world, List.of(row), rowWarmupSeconds, rowWarmupSeconds, a, b);
            String line = measure(world, row, a, b);
            if (world.rank() == 0) {
                lines.add(line);
            }
        }
        if (buffers == Buffers.device) {
            world.free(a);
            world.free(b);
        }
        arena.close();
    }

    /**
     * JIT warm-up by time, not by a number of calls: calls counted from a calibration on cold
     * (interpreted) code are far too few for the JIT to compile the collective paths before the
     * row is timed, so a row would time the interpreter. Every rank runs the same batches of
     * every row for {@code seconds}, and then on until every rank's JIT is quiet
     * ({@link JitSettling}) or {@code maxSeconds} have passed; returns whether every JIT went quiet.
     */
    private static boolean warmUp(Communicator world, List<Row> rows, double seconds, double maxSeconds, MemorySegment a,
                                  MemorySegment b) {
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        long limit = start + (long) (maxSeconds * 1e9);
        JitSettling jit = new JitSettling();
        while (true) {
            for (Row row : rows) {
                int batch = row.bytes() >= 1 << 16 ? WARM_UP_BATCH_LONG : WARM_UP_BATCH_SHORT;
                for (int i = 0; i < batch; i++) {
                    call(world, row, a, b);
                }
            }
            JitSettling.Verdict verdict = jit.agree(world, deadline, limit);
            if (verdict != JitSettling.Verdict.GO_ON) {
                return verdict == JitSettling.Verdict.QUIET;
            }
        }
    }

    /** One row, as bench/peers/mpi/collectives.c times it: calibrate, warm up, then time each call. */
    private String measure(Communicator world, Row row, MemorySegment a, MemorySegment b) {
        world.barrier();
        // The median call of the calibration: one stalled call (a JIT deoptimisation, a time slice) must not
        // shrink the number of measured calls to a handful.
        double[] calibration = new double[CALIBRATION_CALLS];
        for (int i = 0; i < CALIBRATION_CALLS; i++) {
            long start = System.nanoTime();
            call(world, row, a, b);
            calibration[i] = (System.nanoTime() - start) / 1e3;
        }
        Arrays.sort(calibration);
        double[] perCall = {calibration[CALIBRATION_CALLS / 2]};
        double[] slowest = new double[1];
        slowest[0] = maxOverRanks(world, perCall)[0];
        int calls = (int) Math.max(MIN_CALLS, Math.min(MAX_CALLS, budget * 1e6 / Math.max(0.01, slowest[0])));
        for (int i = 0; i < Math.max(5, calls / 10); i++) {
            call(world, row, a, b);
        }
        world.barrier();
        double[] micros = new double[calls];
        double sum = 0;
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            once(world, row, a, b);
            micros[i] = (System.nanoTime() - t0) / 1e3;
            sum += micros[i];
            if (!isBarrier(row)) {
                world.barrier();
            }
        }
        Arrays.sort(micros);
        double[] local = {micros[calls / 2], micros[(int) (calls * 0.99)], sum / calls};
        double[] max = maxOverRanks(world, local);
        return String.format(Locale.ROOT, "COLL op=%s bytes=%d np=%d iters=%d med_us=%.3f p99_us=%.3f avg_us=%.3f",
                row.op(), row.bytes(), world.size(), calls, max[0], max[1], max[2]);
    }

    /**
     * The element-wise maximum of {@code values} over the ranks, by an allgather: a reduction with
     * MAX here would be the first MAX the measured allreduce code meets, and the JIT would drop its
     * compiled SUM-only code (an uncommon trap) just before the row is timed.
     */
    private static double[] maxOverRanks(Communicator world, double[] values) {
        double[] all = new double[values.length * world.size()];
        world.allgather(MemorySegment.ofArray(values), values.length, Datatype.DOUBLE, MemorySegment.ofArray(all));
        double[] max = values.clone();
        for (int r = 0; r < world.size(); r++) {
            for (int i = 0; i < values.length; i++) {
                max[i] = Math.max(max[i], all[r * values.length + i]);
            }
        }
        return max;
    }

    /** A call followed by the untimed barrier, as in calibration and warm-up. */
    private static void call(Communicator world, Row row, MemorySegment a, MemorySegment b) {
        once(world, row, a, b);
        if (!isBarrier(row)) {
            world.barrier();
        }
    }

    /** Whether the row's bytes are per rank, its buffers as many times that as there are ranks. */
    private static boolean perRank(Row row) {
        return row.op().equals("alltoall") || row.op().equals("ialltoall") || row.op().equals("iallgather");
    }

    /** A barrier row needs no untimed barrier between its calls. */
    private static boolean isBarrier(Row row) {
        return row.op().equals("barrier") || row.op().equals("ibarrier");
    }

    private static void once(Communicator world, Row row, MemorySegment a, MemorySegment b) {
        switch (row.op()) {
            case "barrier" -> world.barrier();
            case "bcast" -> world.bcast(a, row.bytes(), Datatype.BYTE, 0);
            case "allreduce" -> world.allreduce(a, b, row.bytes() / 8, Datatype.DOUBLE, Op.SUM);
            case "alltoall" -> world.alltoall(a, row.bytes(), Datatype.BYTE, b);
            case "ibarrier" -> world.ibarrier().await();
            case "ibcast" -> world.ibcast(a, row.bytes(), Datatype.BYTE, 0).await();
            case "iallreduce" -> world.iallreduce(a, b, row.bytes() / 8, Datatype.DOUBLE, Op.SUM).await();
            case "ialltoall" -> world.ialltoall(a, row.bytes(), Datatype.BYTE, b).await();
            case "iallgather" -> world.iallgather(a, row.bytes(), Datatype.BYTE, b).await();
            case "ireduce" -> world.ireduce(a, b, row.bytes() / 8, Datatype.DOUBLE, Op.SUM, 0).await();
            default -> throw new IllegalStateException(row.op());
        }
    }
}
