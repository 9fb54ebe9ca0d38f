package mpi;

/**
 * The layout of {@code MPI.SHORT_INT} elements, the (short value, int index) pairs that
 * {@code MPI.MINLOC} and {@code MPI.MAXLOC} reduce. The short is kept widened to an int at
 * byte 0 (where a C {@code struct {short; int;}} keeps the short and its padding), the index at
 * byte 4: Lockstep reduces these pairs as (int, int). Read and write them through
 * {@code MPI.shortInt.getData(buffer, i)}.
 */
public final class ShortInt extends Struct {
    private final int valueOffset;
    private final int indexOffset;

    ShortInt() {
        valueOffset = addInt();
        indexOffset = addInt();
    }

    @Override
    protected Data newData() {
        return new Data();
    }

    /** One (short value, index) pair. */
    public final class Data extends Struct.Data {
        public short getValue() {
            return (short) getInt(valueOffset);
        }

        public int getIndex() {
            return getInt(indexOffset);
        }

        public void putValue(short v) {
            putInt(valueOffset, v);
        }

        public void putIndex(int v) {
            putInt(indexOffset, v);
        }
    }
}
