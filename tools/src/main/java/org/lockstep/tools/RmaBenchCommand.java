package org.lockstep.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Info;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.Window;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep bench rma}: one-sided communication, timed as the peer program
 * {@code bench/peers/mpi/rma.c} times it on Open MPI. Rank 0 puts or gets 8 B and 1 MiB to or
 * from rank 1's part of an allocated window, each iteration closed by a fence at every rank (mode
 * fence) or in its own shared-lock epoch while the others wait in a barrier (mode lock); then it
 * sums (load) or writes (store) 4096 longs of rank 1's part of a shared window through
 * {@code sharedQuery} (mode shared), against the same loop over off-heap memory of its own (mode
 * plain). Each transfer row is warmed up (30000 calls for 8 B, as many as timed for 1 MiB), then on
 * in batches until every rank's JIT is quiet ({@link JitSettling}) or {@code --max-warmup-seconds}
 * have passed, then timed; rank 0 prints the median and p99, and a WARMUP line per row. A fixed
 * 30000 calls was not enough: the 8 B rows then timed whatever the compiler threads, which share
 * a bound rank's core, had finished (session 16, 2 processes: lock put 0.27-1.04 us over five
 * runs of one build, 0.05-0.08 us with this warm-up; docs/benchmarks.md).
 */
@Command(name = "rma", mixinStandardHelpOptions = true,
        description = "Times put and get (8 B, 1 MiB) under fence and under lock, and loads and stores through a shared"
                + " window against plain memory; prints RMA lines comparable with bench/peers/mpi/rma.c.")
final class RmaBenchCommand implements Callable<Integer> {
    private static final int WORDS = 4096;
    private static final long[] SIZES = {8, 1 << 20};
    private static final int WARMUP_CALLS = 30_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--processes", paramLabel = "N", defaultValue = "2", description = "Separate JVM processes (2 or 4; default: ${DEFAULT-VALUE}).")
    int processes;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "1000",
            description = "Iterations of an 8 B row and a memory row; a 1 MiB row runs a tenth (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--max-warmup-seconds", paramLabel = "S", defaultValue = "60",
            description = "After its warm-up calls, a transfer row warms up until every rank's JIT has been quiet for half a"
                    + " second, for at most this long (default: ${DEFAULT-VALUE}); the time it took is printed (WARMUP).")
    double maxWarmupSeconds;

    @Option(names = "--bind-to-core", negatable = true, defaultValue = "false", fallbackValue = "true",
            description = "Pin rank r to core r mod cores (default: ${DEFAULT-VALUE}).")
    boolean bindToCore;

    @Mixin
    JobSettings settings;

    private static volatile long sink;

    @Override
    public Integer call() {
        if (processes != 2 && processes != 4) {
            throw new ParameterException(spec.commandLine(), "--processes must be 2 or 4");
        }
        if (org.lockstep.api.LaunchEnvironment.current().isEmpty()) {
            return ProcessLauncher.relaunchCommand(spec.commandLine().getParseResult().originalArgs(), processes,
                    List.of("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"), bindToCore);
        }
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        JobOptions options = settings.jobOptions(processes, Map.of());
        Lockstep.run(options, world -> {
            transfers(world, lines);
            memory(world, lines);
        });
        PrintWriter out = spec.commandLine().getOut();
        lines.forEach(out::println);
        out.flush();
        return 0;
    }

    private void transfers(Communicator world, List<String> lines) {
        double[] us = new double[iterations];
        double[] warmup = new double[Math.max(iterations, WARMUP_CALLS)];
        MemorySegment buffer = Arena.ofAuto().allocate(1 << 20, 64);
        buffer.fill((byte) 7);
        Window win = world.allocateWindow(1 << 20, 1, Info.EMPTY);
        for (long bytes : SIZES) {
            int n = bytes > 8 ? iterations / 10 : iterations;
            for (boolean lock : new boolean[] {false, true}) {
                for (boolean get : new boolean[] {false, true}) {
                    String mode = lock ? "lock" : "fence";
                    String op = get ? "get" : "put";
                    long start = System.nanoTime();
                    boolean quiet = warmUp(world, win, buffer.asSlice(0, bytes), lock, get, bytes > 8 ? n : WARMUP_CALLS, n, warmup);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    transfer(world, win, buffer.asSlice(0, bytes), lock, get, n, us);
                    if (world.rank() == 0) {
                        lines.add(line(mode, op, bytes, world.size(), n, us));
                        lines.add(String.format(Locale.ROOT, "WARMUP row=%s-%s bytes=%d seconds=%.1f jit_quiet=%b", mode, op, bytes, seconds,
                                quiet));
                    }
                }
            }
        }
        win.free();
    }

    /**
     * {@code calls} calls of a row, then batches of {@code batch} until every rank's JIT is quiet or
     * {@code --max-warmup-seconds} have passed, so that the row times the window's compiled paths, as
     * the peer's run times code compiled ahead; returns whether every JIT went quiet.
     */
    private boolean warmUp(Communicator world, Window win, MemorySegment data, boolean lock, boolean get, int calls, int batch,
                           double[] us) {
        long start = System.nanoTime();
        long limit = start + (long) (maxWarmupSeconds * 1e9);
        JitSettling jit = new JitSettling();
        transfer(world, win, data, lock, get, calls, us);
        JitSettling.Verdict verdict;
        while ((verdict = jit.agree(world, start, limit)) == JitSettling.Verdict.GO_ON) {
            transfer(world, win, data, lock, get, batch, us);
        }
        return verdict == JitSettling.Verdict.QUIET;
    }

    private static void transfer(Communicator world, Window win, MemorySegment data, boolean lock, boolean get, int n, double[] us) {
        if (!lock) {
            win.fence(); // the epoch the first iteration accesses in
        }
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            if (world.rank() == 0) {
                if (lock) {
                    win.lock(Window.LockType.SHARED, 1);
                }
                if (get) {
                    win.get(data, data.byteSize(), Datatype.BYTE, 1, 0);
                } else {
                    win.put(data, data.byteSize(), Datatype.BYTE, 1, 0);
                }
                if (lock) {
                    win.unlock(1);
                }
            }
            if (!lock) {
                win.fence();
            }
            us[i] = (System.nanoTime() - t0) / 1e3;
        }
        if (lock) {
            world.barrier();
        }
    }

    private void memory(Communicator world, List<String> lines) {
        double[] us = new double[iterations];
        Window shared = world.allocateSharedWindow(8L * WORDS, 8, Info.EMPTY);
        shared.fence();
        if (world.rank() == 0) {
            MemorySegment neighbour = shared.sharedQuery(1);
            MemorySegment plain = Arena.ofAuto().allocate(8L * WORDS, 64);
            for (int warm = 0; warm < 3; warm++) { // both kinds of segment through the same loops, so that neither runs deoptimised
                for (boolean store : new boolean[] {false, true}) {
                    touch(neighbour, store, us);
                    touch(plain, store, us);
                }
            }
            for (boolean store : new boolean[] {false, true}) {
                touch(neighbour, store, us);
                lines.add(line("shared", store ? "store" : "load", 8L * WORDS, world.size(), iterations, us));
                touch(plain, store, us);
                lines.add(line("plain", store ? "store" : "load", 8L * WORDS, world.size(), iterations, us));
            }
        }
        shared.fence();
        shared.free();
    }

    private static void touch(MemorySegment words, boolean store, double[] us) {
        for (int i = 0; i < us.length; i++) {
            long t0 = System.nanoTime();
            if (store) {
                for (int w = 0; w < WORDS; w++) {
                    words.setAtIndex(ValueLayout.JAVA_LONG, w, w + i);
                }
            } else {
                long sum = 0;
                for (int w = 0; w < WORDS; w++) {
                    sum += words.getAtIndex(ValueLayout.JAVA_LONG, w);
                }
                sink = sum;
            }
            us[i] = (System.nanoTime() - t0) / 1e3;
        }
    }

    private static String line(String mode, String op, long bytes, int np, int n, double[] us) {
        double[] sorted = Arrays.copyOf(us, n);
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "RMA mode=%s op=%s bytes=%d np=%d iters=%d med_us=%.3f p99_us=%.3f", mode, op, bytes, np, n,
                sorted[n / 2], sorted[(int) (n * 0.99)]);
    }
}
