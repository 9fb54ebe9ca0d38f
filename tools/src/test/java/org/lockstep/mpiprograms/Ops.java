package org.lockstep.mpiprograms;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;

import mpi.Comm;
import mpi.Datatype;
import mpi.DoubleInt;
import mpi.Int2;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.ShortInt;
import mpi.UserFunction;

/** Predefined operations on each type, MINLOC/MAXLOC over the pair types, user functions (array and buffer forms, non-commutative), reduceLocal. */
public final class Ops {
    /** 2x2 integer matrices (4 ints each) multiplied in order: associative, not commutative. */
    static final class MatrixProduct extends UserFunction {
        @Override
        public void call(Object inVec, Object inOutVec, int count, Datatype datatype) {
            int[] a = (int[]) inVec;
            int[] b = (int[]) inOutVec;
            for (int m = 0; m < count / 4; m++) {
                int o = 4 * m;
                int c0 = a[o] * b[o] + a[o + 1] * b[o + 2];
                int c1 = a[o] * b[o + 1] + a[o + 1] * b[o + 3];
                int c2 = a[o + 2] * b[o] + a[o + 3] * b[o + 2];
                int c3 = a[o + 2] * b[o + 1] + a[o + 3] * b[o + 3];
                b[o] = c0;
                b[o + 1] = c1;
                b[o + 2] = c2;
                b[o + 3] = c3;
            }
        }
    }

    /** Sums ints where they lie, through the buffer form. */
    static final class BufferSum extends UserFunction {
        @Override
        public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype datatype) {
            IntBuffer a = in.asIntBuffer();
            IntBuffer b = inOut.asIntBuffer();
            for (int i = 0; i < count; i++) {
                b.put(i, a.get(i) + b.get(i));
            }
        }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Comm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();

        short[] shorts = {(short) rank};
        world.allReduce(shorts, 1, MPI.SHORT, MPI.MAX);
        Check.equal(size - 1, shorts[0], "short max");
        float[] floats = {rank + 1f};
        world.allReduce(floats, 1, MPI.FLOAT, MPI.MIN);
        Check.equal(1f, floats[0], "float min");
        byte[] bytes = {(byte) (1 << rank % 8)};
        world.allReduce(bytes, 1, MPI.BYTE, MPI.BXOR);
        int expectedBits = 0;
        for (int r = 0; r < size; r++) {
            expectedBits ^= 1 << r % 8;
        }
        Check.equal((byte) expectedBits, bytes[0], "byte bxor");
        long[] longs = {rank % 2};
        world.allReduce(longs, 1, MPI.LONG, MPI.LXOR);
        Check.equal(size / 2 % 2, longs[0], "long lxor");
        char[] chars = {(char) (0xF0 | rank)};
        world.allReduce(chars, 1, MPI.CHAR, MPI.BAND);
        Check.equal(0xF0, chars[0], "char band");

        // MINLOC and MAXLOC through the pair helpers
        ByteBuffer pairs = MPI.newByteBuffer(MPI.INT2.getExtent() * 2);
        ByteBuffer result = MPI.newByteBuffer(MPI.INT2.getExtent() * 2);
        Int2.Data first = MPI.int2.getData(pairs, 0);
        first.putValue(rank % 2);
        first.putIndex(rank);
        Int2.Data second = MPI.int2.getData(pairs, 1);
        second.putValue(-rank);
        second.putIndex(rank);
        world.allReduce(pairs, result, 2, MPI.INT2, MPI.MAXLOC);
        Int2.Data max0 = MPI.int2.getData(result, 0);
        Int2.Data max1 = MPI.int2.getData(result, 1);
        Check.that(max0.getValue() == (size > 1 ? 1 : 0) && max0.getIndex() == (size > 1 ? 1 : 0), "maxloc ties go to the lower index");
        Check.that(max1.getValue() == 0 && max1.getIndex() == 0, "maxloc");
        ByteBuffer d = MPI.newByteBuffer(MPI.DOUBLE_INT.getExtent());
        ByteBuffer dmin = MPI.newByteBuffer(MPI.DOUBLE_INT.getExtent());
        DoubleInt.Data dv = MPI.doubleInt.getData(d);
        dv.putValue(10.5 - rank);
        dv.putIndex(rank * 2);
        world.allReduce(d, dmin, 1, MPI.DOUBLE_INT, MPI.MINLOC);
        DoubleInt.Data dm = MPI.doubleInt.getData(dmin);
        Check.that(dm.getValue() == 10.5 - (size - 1) && dm.getIndex() == 2 * (size - 1), "double minloc");
        ByteBuffer s = MPI.newByteBuffer(MPI.SHORT_INT.getExtent());
        ShortInt.Data sv = MPI.shortInt.getData(s);
        sv.putValue((short) -rank);
        sv.putIndex(rank);
        world.allReduce(s, 1, MPI.SHORT_INT, MPI.MINLOC);
        Check.that(sv.getValue() == -(size - 1) && sv.getIndex() == size - 1, "short minloc in place");

        // a non-commutative user function: the product must come in rank order
        Op product = new Op(new MatrixProduct(), false);
        Check.that(!product.isCommutative(), "the op says it is not commutative");
        int[] single = multiply(new int[] {1, rank, 0, 1}, new int[] {1, 0, rank + 1, 1});
        int[] ordered = new int[4];
        world.allReduce(single, ordered, 4, MPI.INT, product);
        int[] expect = {1, 0, 0, 1};
        for (int r = 0; r < size; r++) {
            expect = multiply(expect, multiply(new int[] {1, r, 0, 1}, new int[] {1, 0, r + 1, 1}));
        }
        Check.equal(expect, ordered, "non-commutative allreduce in rank order");
        int[] atRoot = new int[4];
        world.reduce(single, atRoot, 4, MPI.INT, product, size - 1);
        if (rank == size - 1) {
            Check.equal(expect, atRoot, "non-commutative reduce in rank order");
        }

        Op bufferSum = new Op(new BufferSum(), true);
        IntBuffer mine = MPI.newIntBuffer(3);
        IntBuffer sums = MPI.newIntBuffer(3);
        for (int i = 0; i < 3; i++) {
            mine.put(i, rank + i);
        }
        world.allReduce(mine, sums, 3, MPI.INT, bufferSum);
        for (int i = 0; i < 3; i++) {
            Check.equal(size * (size - 1) / 2 + size * i, sums.get(i), "buffer-form user sum " + i);
        }
        bufferSum.free();
        Check.that(bufferSum.isNull(), "a freed op is null");

        int[] local = {1, 2, 3};
        int[] inOut = {10, 20, 30};
        Comm.reduceLocal(local, inOut, 3, MPI.INT, MPI.SUM);
        Check.equal(new int[] {11, 22, 33}, inOut, "reduceLocal");

        // complex numbers add element by element
        double[] complex = {rank, 1};
        double[] complexSum = new double[2];
        world.allReduce(complex, complexSum, 1, MPI.DOUBLE_COMPLEX, MPI.SUM);
        Check.that(complexSum[0] == size * (size - 1) / 2.0 && complexSum[1] == size, "complex sum");

        Check.passed("ops");
        MPI.Finalize();
    }

    static int[] multiply(int[] a, int[] b) {
        return new int[] {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    }
}
