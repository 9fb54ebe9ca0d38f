package org.lockstep.bundles;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicLongArray;

import org.osgi.framework.Bundle;

/**
 * The job both OSGi tests run, as a {@code RankProgram} of the API bundle: each rank sends its
 * number (100 + rank) to the right and receives the left neighbour's, then all reduce the numbers
 * to their sum. What each rank got is kept per rank.
 */
final class RingJob {
    final AtomicLongArray received;
    final AtomicLongArray sums;
    private final Bundle api;

    RingJob(Bundle api, int size) {
        this.api = api;
        this.received = new AtomicLongArray(size);
        this.sums = new AtomicLongArray(size);
    }

    /** The number rank {@code rank} must receive in a world of {@code size}. */
    static long expectedReceived(int rank, int size) {
        return 100 + (rank + size - 1) % size;
    }

    /** The sum every rank must get in a world of {@code size}. */
    static long expectedSum(int size) {
        return 100L * size + (long) size * (size - 1) / 2;
    }

    /** This job as an instance of the API bundle's {@code org.lockstep.api.RankProgram}. */
    Object program() throws ClassNotFoundException {
        Class<?> programType = api.loadClass("org.lockstep.api.RankProgram");
        return Proxy.newProxyInstance(programType.getClassLoader(), new Class<?>[] {programType}, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return method.invoke(this, args);
            }
            run(args[0]);
            return null;
        });
    }

    private void run(Object world) throws Exception {
        Class<?> communicator = api.loadClass("org.lockstep.api.Communicator");
        Class<?> datatype = api.loadClass("org.lockstep.api.Datatype");
        Class<?> op = api.loadClass("org.lockstep.api.Op");
        Object longs = datatype.getField("LONG").get(null);
        int rank = (int) communicator.getMethod("rank").invoke(world);
        int size = (int) communicator.getMethod("size").invoke(world);
        long[] out = {100 + rank};
        long[] in = new long[1];
        communicator.getMethod("sendrecv", MemorySegment.class, long.class, datatype, int.class, int.class,
                        MemorySegment.class, long.class, datatype, int.class, int.class)
                .invoke(world, MemorySegment.ofArray(out), 1L, longs, (rank + 1) % size, 0,
                        MemorySegment.ofArray(in), 1L, longs, (rank + size - 1) % size, 0);
        received.set(rank, in[0]);
        long[] sum = new long[1];
        communicator.getMethod("allreduce", MemorySegment.class, MemorySegment.class, long.class, datatype, op)
                .invoke(world, MemorySegment.ofArray(out), MemorySegment.ofArray(sum), 1L, longs, op.getField("SUM").get(null));
        sums.set(rank, sum[0]);
    }
}
