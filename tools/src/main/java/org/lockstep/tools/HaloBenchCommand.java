package org.lockstep.tools;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep bench halo}: the halo exchange of a 2-D Jacobi stencil, timed as the peer
 * program {@code bench/peers/mpi/halo.c} times it on Open MPI. Each rank owns an n x n block of
 * doubles with a one-cell halo on a px x py grid of ranks (2: 2 x 1, 4: 2 x 2); rows travel as
 * contiguous doubles, columns as a vector datatype. Variant {@code vector}: four irecv and four
 * isend and a wait for all, per exchange; {@code persistent}: the same eight operations made once
 * with recvInit/sendInit, then started and waited for at each exchange; {@code neighbor}: over a
 * py x px Cartesian communicator, the four edges packed into one buffer (north, south, west, east:
 * MPI's neighbour order), one neighborAlltoall, the halos unpacked; {@code alltoall} (not in the default
 * list): that neighborAlltoall of the packed edges alone, without packing or unpacking. An untimed Jacobi sweep
 * and barrier separate timed exchanges; the row is the maximum over ranks of each rank's median.
 */
@Command(name = "halo", mixinStandardHelpOptions = true,
        description = "Times the halo exchange of a 2-D stencil (columns as a vector datatype), as isend/irecv, as"
                + " persistent requests and as a neighborAlltoall over a Cartesian communicator, per block size; prints HALO"
                + " lines comparable with bench/peers/mpi/halo.c.")
final class HaloBenchCommand implements Callable<Integer> {
    /** How one exchange is made. */
    enum Variant {
        VECTOR, PERSISTENT, NEIGHBOR, ALLTOALL
    }

    private static final int CALIBRATION_STEPS = 21;
    private static final int MAX_STEPS = 5000;

    @Spec
    CommandSpec spec;

    @Option(names = "--processes", paramLabel = "N", defaultValue = "2", description = "Separate JVM processes (2 or 4; default: ${DEFAULT-VALUE}).")
    int processes;

    @Option(names = "--sizes", paramLabel = "N,N,...", defaultValue = "64,256,1024", split = ",",
            description = "Block edges n (each rank owns n x n doubles; default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--variants", paramLabel = "V,V,...", defaultValue = "vector,persistent,neighbor", split = ",",
            description = "Variants to time, of vector, persistent, neighbor, alltoall (neighbor's neighborAlltoall alone;"
                    + " default: ${DEFAULT-VALUE}); a profile of one sees only its warm-up and rows.")
    List<String> variants;

    @Option(names = "--budget", paramLabel = "SECONDS", defaultValue = "0.5", description = "Time per row (default: ${DEFAULT-VALUE}).")
    double budget;

    @Option(names = "--warmup-seconds", paramLabel = "S", defaultValue = "2",
            description = "JIT warm-up per size, by time; longer by the factor of ranks to the CPUs a rank may use, when that is"
                    + " above 1 (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Option(names = "--max-warmup-seconds", paramLabel = "S", defaultValue = "60",
            description = "After --warmup-seconds, the warm-up goes on until every rank's JIT has been quiet for half a second,"
                    + " for at most this long (default: ${DEFAULT-VALUE}); the time it took is printed (WARMUP).")
    double maxWarmupSeconds;

    @Option(names = "--bind-to-core", negatable = true, defaultValue = "false", fallbackValue = "true",
            description = "Pin rank r to core r mod cores (default: ${DEFAULT-VALUE}).")
    boolean bindToCore;

    @Mixin
    JobSettings settings;

    @Override
    public Integer call() {
        if (processes != 2 && processes != 4) {
            throw new ParameterException(spec.commandLine(), "--processes must be 2 or 4");
        }
        List<Variant> timed = new ArrayList<>();
        for (String name : variants) {
            try {
                timed.add(Variant.valueOf(name.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--variants: no variant " + name + " (vector, persistent, neighbor, alltoall)");
            }
        }
        if (org.lockstep.api.LaunchEnvironment.current().isEmpty()) {
            return ProcessLauncher.relaunchCommand(spec.commandLine().getParseResult().originalArgs(), processes,
                    List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"), bindToCore);
        }
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        JobOptions options = settings.jobOptions(processes, Map.of());
        Lockstep.run(options, world -> {
            // one grid for every size, as a stencil code makes it once (the mailbox transport has device slots for the
            // collectives of its first few communicators only)
            int px = world.size() >= 4 ? 2 : world.size();
            CartesianCommunicator cart = world.createCart(new int[] {world.size() / px, px}, new boolean[2], false);
            for (int n : sizes) {
                Block b = new Block(world, cart, n);
                long warmUpStart = System.nanoTime();
                boolean settled = warmUp(world, b, timed);
                if (world.rank() == 0) {
                    lines.add(String.format(Locale.ROOT, "WARMUP n=%d seconds=%.1f jit_quiet=%b", n,
                            (System.nanoTime() - warmUpStart) / 1e9, settled));
                }
                for (Variant variant : timed) {
                    String line = row(world, b, variant);
                    if (world.rank() == 0) {
                        lines.add(line);
                    }
                }
                b.close();
            }
            cart.close();
        });
        PrintWriter out = spec.commandLine().getOut();
        lines.forEach(out::println);
        out.flush();
        return 0;
    }

    /** A rank's block of the grid and its neighbours. */
    static final class Block {
        final Communicator world;
        final int n;
        final int width;
        final int north;
        final int south;
        final int west;
        final int east;
        final double[] grid;
        final double[] next;
        final MemorySegment segment;
        final Datatype column;
        final CartesianCommunicator cart;
        final double[] edges;
        final double[] halos;

        Block(Communicator world, CartesianCommunicator cart, int n) {
            this.world = world;
            this.n = n;
            this.width = n + 2;
            int size = world.size();
            int rank = world.rank();
            int px = size >= 4 ? 2 : size;
            int py = size / px;
            int cx = rank % px;
            int cy = rank / px;
            west = cx > 0 ? rank - 1 : Communicator.PROC_NULL;
            east = cx < px - 1 ? rank + 1 : Communicator.PROC_NULL;
            north = cy > 0 ? rank - px : Communicator.PROC_NULL;
            south = cy < py - 1 ? rank + px : Communicator.PROC_NULL;
            grid = new double[width * width];
            next = new double[width * width];
            for (int i = 0; i < grid.length; i++) {
                grid[i] = rank * 7 + i % 13;
            }
            segment = MemorySegment.ofArray(grid);
            column = Datatype.vector(n, 1, width, Datatype.DOUBLE).commit();
            this.cart = cart;
            edges = new double[4 * n];
            halos = new double[4 * n];
        }

        /** One exchange of the {@code neighbor} variant: pack the edges, neighborAlltoall, unpack the halos that came. */
        void neighborExchange() {
            System.arraycopy(grid, width + 1, edges, 0, n);
            System.arraycopy(grid, n * width + 1, edges, n, n);
            for (int r = 0; r < n; r++) {
                edges[2 * n + r] = grid[(r + 1) * width + 1];
                edges[3 * n + r] = grid[(r + 1) * width + n];
            }
            cart.neighborAlltoall(MemorySegment.ofArray(edges), n, Datatype.DOUBLE, MemorySegment.ofArray(halos));
            if (north != Communicator.PROC_NULL) {
                System.arraycopy(halos, 0, grid, 1, n);
            }
            if (south != Communicator.PROC_NULL) {
                System.arraycopy(halos, n, grid, (n + 1) * width + 1, n);
            }
            if (west != Communicator.PROC_NULL) {
                for (int r = 0; r < n; r++) {
                    grid[(r + 1) * width] = halos[2 * n + r];
                }
            }
            if (east != Communicator.PROC_NULL) {
                for (int r = 0; r < n; r++) {
                    grid[(r + 1) * width + n + 1] = halos[3 * n + r];
                }
            }
        }

        /** The {@code alltoall} variant: the neighbor variant's neighborAlltoall of the packed edges, nothing else. */
        void neighborAlltoallAlone() {
            cart.neighborAlltoall(MemorySegment.ofArray(edges), n, Datatype.DOUBLE, MemorySegment.ofArray(halos));
        }

        private MemorySegment at(int row, int col) {
            return segment.asSlice(((long) row * width + col) * Double.BYTES);
        }

        /** The eight operations of one exchange, receives first; tags name the direction of travel. */
        Request[] post() {
            return new Request[] {
                world.irecv(at(0, 1), n, Datatype.DOUBLE, north, 1),
                world.irecv(at(n + 1, 1), n, Datatype.DOUBLE, south, 0),
                world.irecv(at(1, 0), 1, column, west, 3),
                world.irecv(at(1, n + 1), 1, column, east, 2),
                world.isend(at(1, 1), n, Datatype.DOUBLE, north, 0),
                world.isend(at(n, 1), n, Datatype.DOUBLE, south, 1),
                world.isend(at(1, 1), 1, column, west, 2),
                world.isend(at(1, n), 1, column, east, 3)};
        }

        PersistentRequest[] init() {
            return new PersistentRequest[] {
                world.recvInit(at(0, 1), n, Datatype.DOUBLE, north, 1),
                world.recvInit(at(n + 1, 1), n, Datatype.DOUBLE, south, 0),
                world.recvInit(at(1, 0), 1, column, west, 3),
                world.recvInit(at(1, n + 1), 1, column, east, 2),
                world.sendInit(at(1, 1), n, Datatype.DOUBLE, north, 0),
                world.sendInit(at(n, 1), n, Datatype.DOUBLE, south, 1),
                world.sendInit(at(1, 1), 1, column, west, 2),
                world.sendInit(at(1, n), 1, column, east, 3)};
        }

        void sweep() {
            for (int r = 1; r <= n; r++) {
                int row = r * width;
                for (int c = 1; c <= n; c++) {
                    next[row + c] = 0.25 * (grid[row - width + c] + grid[row + width + c] + grid[row + c - 1] + grid[row + c + 1]);
                }
            }
            for (int r = 1; r <= n; r++) {
                System.arraycopy(next, r * width + 1, grid, r * width + 1, n);
            }
        }

        void close() {
            column.free();
        }
    }

    private static void exchange(Block b, Variant variant, PersistentRequest[] persistent) {
        if (variant == Variant.NEIGHBOR) {
            b.neighborExchange();
        } else if (variant == Variant.ALLTOALL) {
            b.neighborAlltoallAlone();
        } else if (persistent != null) {
            PersistentRequest.startAll(persistent);
            Request.waitAll(persistent);
        } else {
            Request.waitAll(b.post());
        }
    }

    /**
     * Every timed variant in batches for {@code --warmup-seconds} (times the ranks a CPU, when
     * oversubscribed: the ranks share the compiler threads' time too), then on until every rank's
     * JIT is quiet ({@link JitSettling}) or {@code --max-warmup-seconds} have passed, as
     * {@code bench collectives} does (where the compile queue was shown to be what a fixed warm-up
     * timed). With a fixed 2 s, 4 ranks on 2 cores gave n=64 medians of 0.6-3.7 ms in one run and
     * 11-29 us in the next of the same build. Returns whether every JIT went quiet.
     */
    private boolean warmUp(Communicator world, Block b, List<Variant> timed) {
        double oversubscription = Math.max(1.0, (double) world.size() / Runtime.getRuntime().availableProcessors());
        long start = System.nanoTime();
        long deadline = start + (long) (warmupSeconds * oversubscription * 1e9);
        long limit = start + (long) (Math.max(warmupSeconds * oversubscription, maxWarmupSeconds) * 1e9);
        JitSettling jit = new JitSettling();
        PersistentRequest[] persistent = b.init();
        JitSettling.Verdict verdict;
        while (true) {
            for (int i = 0; i < 50; i++) {
                for (Variant variant : timed) {
                    exchange(b, variant, variant == Variant.PERSISTENT ? persistent : null);
                }
            }
            verdict = jit.agree(world, deadline, limit);
            if (verdict != JitSettling.Verdict.GO_ON) {
                break;
            }
        }
        for (PersistentRequest r : persistent) {
            r.free();
        }
        return verdict == JitSettling.Verdict.QUIET;
    }

    private String row(Communicator world, Block b, Variant variant) {
        PersistentRequest[] persistent = variant == Variant.PERSISTENT ? b.init() : null;
        double[] calibration = new double[CALIBRATION_STEPS];
        for (int i = 0; i < CALIBRATION_STEPS; i++) {
            long t0 = System.nanoTime();
            exchange(b, variant, persistent);
            b.sweep();
            world.barrier();
            calibration[i] = (System.nanoTime() - t0) / 1e3;
        }
        Arrays.sort(calibration);
        double slowest = maxOverRanks(world, new double[] {calibration[CALIBRATION_STEPS / 2]})[0];
        int steps = (int) Math.max(20, Math.min(MAX_STEPS, budget * 1e6 / Math.max(0.01, slowest)));
        double[] micros = new double[steps];
        for (int i = 0; i < steps; i++) {
            b.sweep();
            world.barrier();
            long t0 = System.nanoTime();
            exchange(b, variant, persistent);
            micros[i] = (System.nanoTime() - t0) / 1e3;
        }
        if (persistent != null) {
            for (PersistentRequest r : persistent) {
                r.free();
            }
        }
        Arrays.sort(micros);
        double[] max = maxOverRanks(world, new double[] {micros[steps / 2], micros[(int) (steps * 0.99)]});
        return String.format(Locale.ROOT, "HALO variant=%s n=%d np=%d iters=%d med_us=%.3f p99_us=%.3f",
                variant.name().toLowerCase(Locale.ROOT), b.n, world.size(), steps, max[0], max[1]);
    }

    /** Element-wise maximum over ranks, by an allgather (as the collectives bench does). */
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
}
