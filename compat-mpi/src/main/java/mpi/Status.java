package mpi;

import org.lockstep.api.ErrorClass;

/**
 * What a completed receive, probe or request found ({@code MPI_Status}): source, tag, error,
 * whether it was cancelled, and how much data arrived.
 */
public final class Status {
    private final int source;
    private final int tag;
    private int error;
    private boolean cancelled;
    private long byteCount;
    private final int index;

    Status(int source, int tag, int error, boolean cancelled, long byteCount, int index) {
        this.source = source;
        this.tag = tag;
        this.error = error;
        this.cancelled = cancelled;
        this.byteCount = byteCount;
        this.index = index;
    }

    /** The status Lockstep reported, with {@code index} for the {@code *Any}/{@code *Some} calls. */
    static Status of(org.lockstep.api.Status status, int index) {
        ErrorClass error = status.error();
        return new Status(status.source(), status.tag(), error == null ? ErrorClasses.SUCCESS : ErrorClasses.of(error),
                status.cancelled(), status.byteCount(), index);
    }

    static Status of(org.lockstep.api.Status status) {
        return of(status, 0);
    }

    /** The status of an operation on {@code MPI.PROC_NULL} or an inactive request: empty. */
    static Status empty(int source) {
        return new Status(source, MPI.ANY_TAG, ErrorClasses.SUCCESS, false, 0, 0);
    }

    /** This status with another index, for the {@code *Any} and {@code *Some} calls. */
    Status withIndex(int newIndex) {
        return new Status(source, tag, error, cancelled, byteCount, newIndex);
    }

    /** Number of whole elements of {@code datatype} received, or {@code MPI.UNDEFINED} ({@code MPI_Get_count}). */
    public int getCount(Datatype datatype) throws MPIException {
        MPI.check();
        long size = datatype.byteSize();
        if (size == 0) {
            return byteCount == 0 ? 0 : MPI.UNDEFINED;
        }
        return byteCount % size == 0 ? (int) (byteCount / size) : MPI.UNDEFINED;
    }

    /** Whether the request was cancelled ({@code MPI_Test_cancelled}). */
    public boolean isCancelled() throws MPIException {
        MPI.check();
        return cancelled;
    }

    /** Number of basic elements received ({@code MPI_Get_elements}). */
    public int getElements(Datatype datatype) throws MPIException {
        Count elements = getElementsX(datatype);
        return elements.getCount() > Integer.MAX_VALUE ? MPI.UNDEFINED : (int) elements.getCount();
    }

    /** As {@link #getElements}, as a {@link Count} ({@code MPI_Get_elements_x}). */
    public Count getElementsX(Datatype datatype) throws MPIException {
        MPI.check();
        if (datatype.wire == null || datatype.wire.size() == 0) {
            return new Count(byteCount == 0 ? 0 : MPI.UNDEFINED);
        }
        // Lockstep counts a complex number as two floats or doubles; the bindings count it as one element
        long perElement = datatype.kind == Datatype.FLOAT_COMPLEX || datatype.kind == Datatype.DOUBLE_COMPLEX ? 2 : 1;
        long basic = org.lockstep.api.Status.of(source, tag, byteCount).elements(datatype.wire);
        if (basic == org.lockstep.api.Status.UNDEFINED) {
            return new Count(MPI.UNDEFINED);
        }
        long basicBytes = datatype.wire.basicType() == null ? 1 : datatype.wire.basicType().size();
        boolean whole = datatype.wire.basicType() == null || byteCount % basicBytes == 0;
        return new Count(whole && basic % perElement == 0 ? basic / perElement : MPI.UNDEFINED);
    }

    /** Sets the number of elements this status reports ({@code MPI_Status_set_elements}). */
    public void setElements(Datatype datatype, int count) throws MPIException {
        setElementsX(datatype, new Count(count));
    }

    /** As {@link #setElements} with a {@link Count} ({@code MPI_Status_set_elements_x}). */
    public void setElementsX(Datatype datatype, Count count) throws MPIException {
        MPI.check();
        if (count.getCount() < 0) {
            throw ErrorClasses.argument(ErrorClasses.COUNT, "Status.setElements", "negative count " + count.getCount());
        }
        byteCount = count.getCount() * datatype.byteSize();
    }

    /** Sets whether this status reports a cancelled request ({@code MPI_Status_set_cancelled}). */
    public void setCancelled(boolean flag) throws MPIException {
        MPI.check();
        cancelled = flag;
    }

    /** Rank of the sender ({@code MPI_SOURCE}). */
    public int getSource() {
        return source;
    }

    /** Tag of the message ({@code MPI_TAG}). */
    public int getTag() {
        return tag;
    }

    /** Error class the operation completed with ({@code MPI_ERROR}). */
    public int getError() {
        return error;
    }

    /** Index of the request in the array given to a {@code *Any} call. */
    public int getIndex() {
        return index;
    }

    @Override
    public String toString() {
        return "Status[source=" + source + ", tag=" + tag + ", error=" + error + ", cancelled=" + cancelled
                + ", bytes=" + byteCount + "]";
    }
}
