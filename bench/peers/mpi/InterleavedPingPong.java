/*
 * InterleavedPingPong: the cost of Lockstep's Java layer over a native MPI, measured inside one job.
 * Ranks 0 and 1 run on the mpi provider (Lockstep's API over the MPI library through FFM) and, in
 * turn, make a block of round trips through the API (Communicator.send and recv, as `lockstep bench
 * pingpong` does) and a block through the C loop of round-trips.c, called through FFM on the same
 * MPI library, buffers and cores. The host moves the two vCPUs near and far apart every few seconds;
 * blocks of a few milliseconds, alternating which side goes first, see the same placements, so the
 * ratio of the two medians is the Java layer's cost alone, whatever the placement.
 *
 *   mpirun -np 2 --bind-to core java --enable-native-access=ALL-UNNAMED -Dlockstep.provider=mpi \
 *       -cp "$(lockstep classpath):CLASSES" InterleavedPingPong LIBRARY [SIZES] [BLOCK] [BLOCKS] [WARM_UP_SECONDS]
 *     LIBRARY  the round-trips library built for this MPI (bench/peers/setup.sh mpi: libround-trips.openmpi.so)
 *     SIZES    comma-separated message sizes in bytes (default 8,64,4096,1048576,4194304)
 *     BLOCK    round trips per block (default 2000; a tenth of it for sizes of 1 MiB and more)
 *     BLOCKS   blocks a side per size (default 40)
 *
 * After WARM_UP_SECONDS (default 5) of alternating blocks of 8 bytes, then one untimed block a side
 * per size, rank 0 prints for each size one line:
 *   IPP size=B blocks=N block=K java_med_us=.. c_med_us=.. ratio=.. block_ratio_med=.. block_ratio_p10=.. block_ratio_p90=..
 *       java_p99_us=.. c_p99_us=..
 * where the medians and p99 are of one-way latencies (round trip / 2) over every timed round trip of
 * the side, ratio = java_med_us / c_med_us, and block_ratio_* are percentiles of the ratio of the two
 * medians of adjacent blocks (a block pair that straddled a placement move shows as an outlier there).
 */
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;

public class InterleavedPingPong {
    private static final int TAG = 7;
    private static final long LARGE = 1 << 20;

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: InterleavedPingPong LIBRARY [SIZES] [BLOCK] [BLOCKS] [WARM_UP_SECONDS]");
            System.exit(2);
        }
        Path library = Path.of(args[0]);
        long[] sizes = Arrays.stream((args.length > 1 ? args[1] : "8,64,4096,1048576,4194304").split(","))
                .mapToLong(Long::parseLong).toArray();
        int block = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        int blocks = args.length > 3 ? Integer.parseInt(args[3]) : 40;
        double warmUpSeconds = args.length > 4 ? Double.parseDouble(args[4]) : 5;
        Lockstep.run(JobOptions.ofRanks(2), world -> new InterleavedPingPong(world, library, sizes).run(block, blocks, warmUpSeconds));
    }

    private final Communicator world;
    private final MethodHandle cRoundTrips;
    private final long[] sizes;
    private final MemorySegment out;
    private final MemorySegment in;

    private InterleavedPingPong(Communicator world, Path library, long[] sizes) {
        this.world = world;
        this.sizes = sizes;
        // Loaded after the provider initialised MPI: the library's MPI symbols are the provider's.
        SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
        MemorySegment function = lookup.find("lockstep_c_round_trips")
                .orElseThrow(() -> new IllegalArgumentException(library + " has no lockstep_c_round_trips"));
        this.cRoundTrips = Linker.nativeLinker().downcallHandle(function, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        long largest = Math.max(1, Arrays.stream(sizes).max().orElse(1));
        this.out = world.allocate(largest);
        this.in = world.allocate(largest);
        out.fill((byte) 0x5a);
    }

    private void run(int block, int blocks, double warmUpSeconds) {
        if (world.size() != 2) {
            throw new IllegalArgumentException("InterleavedPingPong needs 2 ranks, got " + world.size());
        }
        long[] javaTimes = new long[block];
        long[] cTimes = new long[block];
        MemorySegment cTimesNative = Arena.global().allocate(ValueLayout.JAVA_LONG, block);
        // Both ranks must agree on when the warm-up ends: rank 0 decides and tells rank 1 in every block's first message.
        long warmUpEnd = System.nanoTime() + (long) (warmUpSeconds * 1e9);
        MemorySegment flag = Arena.global().allocate(1);
        while (true) {
            flag.set(ValueLayout.JAVA_BYTE, 0, (byte) (world.rank() == 0 && System.nanoTime() < warmUpEnd ? 1 : 0));
            world.bcast(flag, 1, Datatype.BYTE, 0);
            if (flag.get(ValueLayout.JAVA_BYTE, 0) == 0) {
                break;
            }
            javaBlock(8, block, javaTimes);
            cBlock(8, block, cTimesNative);
        }
        for (long size : sizes) {
            int perBlock = size >= LARGE ? Math.max(10, block / 10) : block;
            javaBlock(size, perBlock, javaTimes);
            cBlock(size, perBlock, cTimesNative);
            long[] allJava = new long[perBlock * blocks];
            long[] allC = new long[perBlock * blocks];
            double[] blockRatios = new double[blocks];
            for (int b = 0; b < blocks; b++) {
                boolean javaFirst = b % 2 == 0;
                if (javaFirst) {
                    javaBlock(size, perBlock, javaTimes);
                    cBlock(size, perBlock, cTimesNative);
                } else {
                    cBlock(size, perBlock, cTimesNative);
                    javaBlock(size, perBlock, javaTimes);
                }
                if (world.rank() == 0) {
                    MemorySegment.copy(cTimesNative, ValueLayout.JAVA_LONG, 0, cTimes, 0, perBlock);
                    System.arraycopy(javaTimes, 0, allJava, b * perBlock, perBlock);
                    System.arraycopy(cTimes, 0, allC, b * perBlock, perBlock);
                    blockRatios[b] = median(javaTimes, perBlock) / median(cTimes, perBlock);
                }
            }
            if (world.rank() == 0) {
                report(size, blocks, perBlock, allJava, allC, blockRatios);
            }
        }
    }

    private void javaBlock(long size, int count, long[] times) {
        if (world.rank() == 0) {
            for (int i = 0; i < count; i++) {
                long start = System.nanoTime();
                world.send(out, size, Datatype.BYTE, 1, TAG);
                world.recv(in, size, Datatype.BYTE, 1, TAG);
                times[i] = System.nanoTime() - start;
            }
        } else {
            for (int i = 0; i < count; i++) {
                world.recv(in, size, Datatype.BYTE, 0, TAG);
                world.send(out, size, Datatype.BYTE, 0, TAG);
            }
        }
    }

    private void cBlock(long size, int count, MemorySegment times) {
        int rc;
        try {
            rc = (int) cRoundTrips.invokeExact((int) size, count, out, in, times);
        } catch (Throwable t) {
            throw new IllegalStateException("the C round trips failed", t);
        }
        if (rc != 0) {
            throw new IllegalStateException("the C round trips returned MPI error " + rc);
        }
    }

    private static double median(long[] values, int count) {
        long[] copy = Arrays.copyOf(values, count);
        Arrays.sort(copy);
        return copy[count / 2];
    }

    private static void report(long size, int blocks, int perBlock, long[] java, long[] c, double[] blockRatios) {
        Arrays.sort(java);
        Arrays.sort(c);
        Arrays.sort(blockRatios);
        double javaMedian = java[java.length / 2] / 2e3;
        double cMedian = c[c.length / 2] / 2e3;
        System.out.printf(Locale.ROOT, "IPP size=%d blocks=%d block=%d java_med_us=%.4f c_med_us=%.4f ratio=%.3f "
                        + "block_ratio_med=%.3f block_ratio_p10=%.3f block_ratio_p90=%.3f java_p99_us=%.3f c_p99_us=%.3f%n",
                size, blocks, perBlock, javaMedian, cMedian, javaMedian / cMedian, blockRatios[blocks / 2],
                blockRatios[blocks / 10], blockRatios[blocks * 9 / 10], java[(int) (java.length * 0.99)] / 2e3,
                c[(int) (c.length * 0.99)] / 2e3);
        System.out.flush();
    }
}
