package mpi;

/**
 * The layout of {@code MPI.FLOAT_INT} elements, the (float value, int index) pairs that
 * {@code MPI.MINLOC} and {@code MPI.MAXLOC} reduce: the value at byte 0, the index at byte 4,
 * no padding. Read and write them through {@code MPI.floatInt.getData(buffer, i)}.
 */
public final class FloatInt extends Struct {
    private final int valueOffset;
    private final int indexOffset;

    FloatInt() {
        valueOffset = addFloat();
        indexOffset = addInt();
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One (float value, index) pair. */
    public final class Data extends Struct.Data {
        public float getValue() {
            return getFloat(valueOffset);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(float v) {
            putFloat(valueOffset, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
