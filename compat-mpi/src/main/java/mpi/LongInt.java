package mpi;

/**
 * The layout of {@code MPI.LONG_INT} elements, the (long value, int index) pairs that
 * {@code MPI.MINLOC} and {@code MPI.MAXLOC} reduce: the value at byte 0, the index at byte 8,
 * no padding. Read and write them through {@code MPI.longInt.getData(buffer, i)}.
 */
public final class LongInt extends Struct {
    private final int valueOffset;
    private final int indexOffset;

    LongInt() {
        valueOffset = addLong();
        indexOffset = addInt();
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One (long value, index) pair. */
    public final class Data extends Struct.Data {
        public long getValue() {
            return getLong(valueOffset);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(long v) {
            putLong(valueOffset, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
