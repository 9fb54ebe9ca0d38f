package org.lockstep.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The reduction kernels every allreduce runs ({@link Op#apply}: {@code inout[i] = in[i] op inout[i]})
 * on native segments, as the device collectives call them: {@code SUM} on doubles and ints,
 * {@code MAX} on doubles, {@code MINLOC} on (double, int) pairs, by element count.
 */
public class OpBenchmark extends PathBenchmark {
    @Param({"1", "128", "65536"})
    int count;

    private MemorySegment in;
    private MemorySegment inout;
    private MemorySegment pairsIn;
    private MemorySegment pairsInout;

    @Setup
    public void setUp() {
        Arena arena = Arena.ofAuto();
        in = arena.allocate(8L * count, 64);
        inout = arena.allocate(8L * count, 64);
        pairsIn = arena.allocate(Datatype.DOUBLE_INT.extent() * count, 64);
        pairsInout = arena.allocate(Datatype.DOUBLE_INT.extent() * count, 64);
        for (long i = 0; i < count; i++) {
            in.setAtIndex(ValueLayout.JAVA_DOUBLE, i, i * 0.5);
            inout.setAtIndex(ValueLayout.JAVA_DOUBLE, i, 1.0);
        }
    }

    @Benchmark
    public MemorySegment sumDouble() {
        Op.SUM.apply(in, inout, count, Datatype.DOUBLE);
        return inout;
    }

    @Benchmark
    public MemorySegment sumInt() {
        Op.SUM.apply(in, inout, count, Datatype.INT);
        return inout;
    }

    @Benchmark
    public MemorySegment maxDouble() {
        Op.MAX.apply(in, inout, count, Datatype.DOUBLE);
        return inout;
    }

    @Benchmark
    public MemorySegment minlocDoubleInt() {
        Op.MINLOC.apply(pairsIn, pairsInout, count, Datatype.DOUBLE_INT);
        return pairsInout;
    }
}
