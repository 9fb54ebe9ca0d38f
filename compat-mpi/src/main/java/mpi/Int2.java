package mpi;

/**
 * The layout of {@code MPI.INT2} elements, the (int value, int index) pairs that
 * {@code MPI.MINLOC} and {@code MPI.MAXLOC} reduce: the value at byte 0, the index at byte 4,
 * no padding. Read and write them through {@code MPI.int2.getData(buffer, i)}.
 */
public final class Int2 extends Struct {
    private final int valueOffset;
    private final int indexOffset;

    Int2() {
        valueOffset = addInt();
        indexOffset = addInt();
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One (int value, index) pair. */
    public final class Data extends Struct.Data {
        public int getValue() {
            return getInt(valueOffset);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(int v) {
            putInt(valueOffset, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
