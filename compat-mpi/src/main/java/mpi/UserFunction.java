package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The function of a user-defined reduction ({@code MPI_User_function}): combines {@code in} into
 * {@code inOut} element by element ({@code inOut[i] = in[i] op inOut[i]}). A subclass overrides
 * one of the two {@code call} methods: the buffer form sees the data where it lies (native byte
 * order); the array form, which the buffer form falls back to, gets Java arrays of the
 * datatype's base type (and {@code boolean[]} for {@code MPI.BOOLEAN}).
 */
public abstract class UserFunction {
    /**
     * Combines arrays of the datatype's base type; {@code count} is in elements of the datatype.
     * The default says it is not implemented.
     */
    public void call(Object inVec, Object inOutVec, int count, Datatype datatype) throws MPIException {
        throw new UnsupportedOperationException("this UserFunction overrides neither call(Object, Object, int, Datatype) "
                + "nor call(ByteBuffer, ByteBuffer, int, Datatype)");
    }

    /**
     * Combines buffers; {@code count} is in elements of the datatype. The default copies them
     * into arrays of the base type, calls {@link #call(Object, Object, int, Datatype)} and copies
     * the result back.
     */
    public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype datatype) throws MPIException {
        int elements = count * datatype.getExtent();
        ByteBuffer a = in.duplicate().order(ByteOrder.nativeOrder());
        ByteBuffer b = inOut.duplicate().order(ByteOrder.nativeOrder());
        switch (datatype.baseType) {
            case Datatype.BYTE, Datatype.PACKED -> {
                byte[] x = new byte[elements];
                byte[] y = new byte[elements];
                a.get(0, x);
                b.get(0, y);
                call(x, y, count, datatype);
                b.put(0, y);
            }
            case Datatype.CHAR -> {
                char[] x = new char[elements];
                char[] y = new char[elements];
                a.asCharBuffer().get(0, x);
                b.asCharBuffer().get(0, y);
                call(x, y, count, datatype);
                b.asCharBuffer().put(0, y);
            }
            case Datatype.SHORT -> {
                short[] x = new short[elements];
                short[] y = new short[elements];
                a.asShortBuffer().get(0, x);
                b.asShortBuffer().get(0, y);
                call(x, y, count, datatype);
                b.asShortBuffer().put(0, y);
            }
            case Datatype.INT -> {
                int[] x = new int[elements];
                int[] y = new int[elements];
                a.asIntBuffer().get(0, x);
                b.asIntBuffer().get(0, y);
                call(x, y, count, datatype);
                b.asIntBuffer().put(0, y);
            }
            case Datatype.LONG -> {
                long[] x = new long[elements];
                long[] y = new long[elements];
                a.asLongBuffer().get(0, x);
                b.asLongBuffer().get(0, y);
                call(x, y, count, datatype);
                b.asLongBuffer().put(0, y);
            }
            case Datatype.FLOAT -> {
                float[] x = new float[elements];
                float[] y = new float[elements];
                a.asFloatBuffer().get(0, x);
                b.asFloatBuffer().get(0, y);
                call(x, y, count, datatype);
                b.asFloatBuffer().put(0, y);
            }
            case Datatype.DOUBLE -> {
                double[] x = new double[elements];
                double[] y = new double[elements];
                a.asDoubleBuffer().get(0, x);
                b.asDoubleBuffer().get(0, y);
                call(x, y, count, datatype);
                b.asDoubleBuffer().put(0, y);
            }
            default -> throw ErrorClasses.argument(ErrorClasses.TYPE, "UserFunction.call", "no arrays for the datatype " + datatype);
        }
    }
}
