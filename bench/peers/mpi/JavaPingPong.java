/*
 * JavaPingPong: one-way latency and bandwidth between ranks 0 and 1, written for the Open MPI Java
 * bindings (package mpi), so that the same unchanged program runs on Open MPI's own bindings and on
 * Lockstep's (module compat-mpi).
 *
 * Timed as mpi/pingpong.c times it: rank 0 takes System.nanoTime() around each round trip
 * (send, then receive, of SIZE bytes); one-way = round trip / 2; per size, after a warm-up of a
 * tenth of the round trips, the median, 99th percentile and minimum in microseconds, and
 * MB/s = SIZE / median one-way. Before the first size, one second of 8-byte round trips lets the
 * JIT compile the loop (both ranks spin, so the compiler threads get little CPU).
 *
 *   java JavaPingPong [direct|array] [SCALE]
 *     direct (default): buffers from MPI.newByteBuffer; array: byte[] arrays
 *     SCALE multiplies the round trips of every size (at least 20)
 *   prints: JPP mode=M size=B iters=N med_us=.. p99_us=.. min_us=.. mbps=..
 */
import java.nio.ByteBuffer;
import java.util.Arrays;

import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

public class JavaPingPong {
    private static final int[] SIZES = {0, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};
    private static final int[] ROUND_TRIPS = {20000, 20000, 20000, 20000, 20000, 10000, 2000, 1000, 300};
    private static final int LARGEST = 4194304;
    private static final int TAG = 1;
    private static final int WARM_TAG = 2;
    private static final int STOP_TAG = 3;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        String mode = args.length > 0 ? args[0] : "direct";
        double scale = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        int rank = MPI.COMM_WORLD.getRank();
        Object out;
        Object in;
        if (mode.equals("array")) {
            byte[] o = new byte[LARGEST];
            byte[] i = new byte[LARGEST];
            Arrays.fill(o, (byte) 1);
            Arrays.fill(i, (byte) 2);
            out = o;
            in = i;
        } else {
            ByteBuffer o = MPI.newByteBuffer(LARGEST);
            ByteBuffer i = MPI.newByteBuffer(LARGEST);
            for (int k = 0; k < LARGEST; k++) {
                o.put(k, (byte) 1);
                i.put(k, (byte) 2);
            }
            out = o;
            in = i;
        }
        warmUp(rank, out, in);
        for (int s = 0; s < SIZES.length; s++) {
            int size = SIZES[s];
            int measured = Math.max(20, (int) (ROUND_TRIPS[s] * scale));
            int warm = Math.max(10, measured / 10);
            double[] oneWay = new double[measured];
            MPI.COMM_WORLD.barrier();
            for (int r = 0; r < warm + measured; r++) {
                if (rank == 0) {
                    long start = System.nanoTime();
                    MPI.COMM_WORLD.send(out, size, MPI.BYTE, 1, TAG);
                    MPI.COMM_WORLD.recv(in, size, MPI.BYTE, 1, TAG);
                    long end = System.nanoTime();
                    if (r >= warm) {
                        oneWay[r - warm] = (end - start) / 2000.0;
                    }
                } else if (rank == 1) {
                    MPI.COMM_WORLD.recv(in, size, MPI.BYTE, 0, TAG);
                    MPI.COMM_WORLD.send(out, size, MPI.BYTE, 0, TAG);
                }
            }
            if (rank == 0) {
                Arrays.sort(oneWay);
                double median = oneWay[measured / 2];
                System.out.printf("JPP mode=%s size=%d iters=%d med_us=%.3f p99_us=%.3f min_us=%.3f mbps=%.1f%n", mode, size,
                        measured, median, oneWay[(int) (measured * 0.99)], oneWay[0], size > 0 ? size / median : 0.0);
                System.out.flush();
            }
        }
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }

    /** One second of 8-byte round trips; rank 0 ends it with a message of tag STOP_TAG. */
    private static void warmUp(int rank, Object out, Object in) throws MPIException {
        MPI.COMM_WORLD.barrier();
        if (rank == 0) {
            long until = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < until) {
                MPI.COMM_WORLD.send(out, 8, MPI.BYTE, 1, WARM_TAG);
                MPI.COMM_WORLD.recv(in, 8, MPI.BYTE, 1, WARM_TAG);
            }
            MPI.COMM_WORLD.send(out, 0, MPI.BYTE, 1, STOP_TAG);
        } else if (rank == 1) {
            while (true) {
                Status s = MPI.COMM_WORLD.recv(in, 8, MPI.BYTE, 0, MPI.ANY_TAG);
                if (s.getTag() == STOP_TAG) {
                    break;
                }
                MPI.COMM_WORLD.send(out, 8, MPI.BYTE, 0, WARM_TAG);
            }
        }
        MPI.COMM_WORLD.barrier();
    }
}
