package mpi;

/**
 * The layout of {@code MPI.DOUBLE_INT} elements, the (double value, int index) pairs that
 * {@code MPI.MINLOC} and {@code MPI.MAXLOC} reduce: the value at byte 0, the index at byte 8,
 * no padding. Read and write them through {@code MPI.doubleInt.getData(buffer, i)}.
 */
public final class DoubleInt extends Struct {
    private final int valueOffset;
    private final int indexOffset;

    DoubleInt() {
        valueOffset = addDouble();
        indexOffset = addInt();
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One (double value, index) pair. */
    public final class Data extends Struct.Data {
        public double getValue() {
            return getDouble(valueOffset);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(double v) {
            putDouble(valueOffset, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
