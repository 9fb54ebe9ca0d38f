package org.lockstep.embsp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Op;

/**
 * The program {@link LargerThanMemoryTest} runs in a JVM of its own with a small heap: v VPs
 * whose contexts together are several times what the process may hold, each keeping most of its
 * context full of data across a barrier, an alltoall and an allreduce, and checking every byte.
 * Prints the run's key=value line and {@code OK}; exits 1 on any failure.
 *
 * <p>Arguments: v k μ B disk-directory heap-bytes.
 */
public final class LargerThanMemoryMain {
    private LargerThanMemoryMain() {
    }

    public static void main(String[] args) {
        int v = Integer.parseInt(args[0]);
        int k = Integer.parseInt(args[1]);
        long mu = Long.parseLong(args[2]);
        long block = Long.parseLong(args[3]);
        long heap = Long.parseLong(args[5]);
        long cache = 4L << 20;
        JobOptions job = JobOptions.ofRanks(v).with(EmBspOptions.CORES, Integer.toString(k))
                .with(EmBspOptions.CONTEXT_SIZE, Long.toString(mu)).with(EmBspOptions.BLOCK_SIZE, Long.toString(block))
                .with(EmBspOptions.DISKS, args[4]).with(EmBspOptions.BOUNDARY_CACHE, Long.toString(cache))
                .with(EmBspOptions.MEMORY, Long.toString(k * mu * 2 + cache));
        long state = mu - mu / 8;
        long per = (mu / 8 - 4096) / 2 / v / 8 * 8;
        try {
            RunReport report = Simulation.run(job, w -> {
                int r = w.rank();
                MemorySegment data = w.allocate(state);
                for (long i = 0; i < state / 8; i++) {
                    data.setAtIndex(ValueLayout.JAVA_LONG, i, value(r, i));
                }
                w.barrier();
                MemorySegment send = w.allocate(per * v);
                MemorySegment recv = w.allocate(per * v);
                for (int j = 0; j < v; j++) {
                    CollectiveChecks.fill(send.asSlice(j * per, per), CollectiveChecks.seed(r, j));
                }
                w.alltoall(send, per, Datatype.BYTE, recv);
                for (int j = 0; j < v; j++) {
                    CollectiveChecks.expect(recv, j * per, per, CollectiveChecks.seed(j, r), "alltoall from " + j + " at " + r);
                }
                long sum = 0;
                for (long i = 0; i < state / 8; i++) {
                    long x = data.getAtIndex(ValueLayout.JAVA_LONG, i);
                    if (x != value(r, i)) {
                        throw new AssertionError("VP " + r + " lost its data at long " + i);
                    }
                    sum += x;
                }
                MemorySegment s = w.allocate(8);
                MemorySegment total = w.allocate(8);
                s.set(ValueLayout.JAVA_LONG, 0, sum);
                w.allreduce(s, total, 1, Datatype.LONG, Op.SUM);
                long expected = 0;
                for (int q = 0; q < w.size(); q++) {
                    for (long i = 0; i < state / 8; i++) {
                        expected += value(q, i);
                    }
                }
                if (total.get(ValueLayout.JAVA_LONG, 0) != expected) {
                    throw new AssertionError("allreduce of checksums at " + r);
                }
            });
            System.out.println(report.keyValueLine() + " boundary_cache_bytes=" + cache + " heap_bytes=" + heap);
            System.out.println(report.withinBounds() ? "OK" : "OVER BOUND");
            System.exit(report.withinBounds() ? 0 : 1);
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
    }

    static long value(int rank, long i) {
        return rank * 0x9E3779B97F4A7C15L ^ (i * 0xBF58476D1CE4E5B9L);
    }
}
