package org.lockstep.mpi.abi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.ErrorClass;

/**
 * The MPICH ABI (MPICH 3.1 to 4.x, {@code libmpich.so.12}, shared by its derivatives such as Intel
 * MPI and MVAPICH; facts from MPICH 4.0's {@code mpi.h}). A handle is a C {@code int}; the
 * predefined handles are integer constants fixed by the ABI.
 *
 * <pre>
 * MPI_Status (20 bytes)
 *  0          4                        8        12       16       20
 *  +----------+------------------------+--------+--------+--------+
 *  | count_lo | count_hi &lt;&lt; 1        | SOURCE |  TAG   | ERROR  |
 *  | int      |  | cancelled (bit 0)   | int    |  int   |  int   |
 *  +----------+------------------------+--------+--------+--------+
 *  count (bytes) = count_lo (unsigned) + (count_hi_and_cancelled &gt;&gt; 1) &lt;&lt; 32
 * </pre>
 */
public final class MpichAbi extends MpiAbi {
    private static final long STATUS_SIZE = 20;
    private static final long COUNT_LO_OFFSET = 0;
    private static final long COUNT_HI_AND_CANCELLED_OFFSET = 4;
    private static final long SOURCE_OFFSET = 8;
    private static final long TAG_OFFSET = 12;
    private static final long ERROR_OFFSET = 16;
    private static final MemorySegment IN_PLACE = MemorySegment.ofAddress(-1L);
    private static final MemorySegment STATUS_IGNORE = MemorySegment.ofAddress(1);
    /** MPIX_ERR_PROC_FAILED: MPICH_ERR_FIRST_MPIX (100) + 1. */
    private static final int MPIX_ERR_PROC_FAILED = 101;
    private static final int MPIX_ERR_PROC_FAILED_PENDING = 102;

    @Override
    public String name() {
        return "MPICH";
    }

    @Override
    public ValueLayout handleLayout() {
        return ValueLayout.JAVA_INT;
    }

    @Override
    public long commWorld() {
        return 0x44000000;
    }

    @Override
    public long commSelf() {
        return 0x44000001;
    }

    @Override
    public long commNull() {
        return 0x04000000;
    }

    @Override
    public long requestNull() {
        return 0x2c000000;
    }

    @Override
    public long errorsReturn() {
        return 0x54000001;
    }

    @Override
    public long infoNull() {
        return 0x1c000000;
    }

    @Override
    public long winNull() {
        return 0x20000000;
    }

    @Override
    public int lockExclusive() {
        return 234;
    }

    @Override
    public int modeNoCheck() {
        return 1024;
    }

    @Override
    public int lockShared() {
        return 235;
    }

    @Override
    public long datatype(NativeType type) {
        return switch (type) {
            case BYTE -> 0x4c00010d;
            case INT8 -> 0x4c000137;
            case UINT8 -> 0x4c00013b;
            case C_BOOL -> 0x4c00013f;
            case INT16 -> 0x4c000238;
            case UINT16 -> 0x4c00023c;
            case INT32 -> 0x4c000439;
            case INT64 -> 0x4c00083a;
            case FLOAT -> 0x4c00040a;
            case DOUBLE -> 0x4c00080b;
            case INT_INT -> 0x4c000816;
            case FLOAT_INT -> 0x8c000000; // a negative int: handles are compared sign-extended, as readHandle reads them
        };
    }

    @Override
    public long op(NativeOp op) {
        return switch (op) {
            case MAX -> 0x58000001;
            case MIN -> 0x58000002;
            case SUM -> 0x58000003;
            case PROD -> 0x58000004;
            case LAND -> 0x58000005;
            case BAND -> 0x58000006;
            case LOR -> 0x58000007;
            case BOR -> 0x58000008;
            case LXOR -> 0x58000009;
            case BXOR -> 0x5800000a;
            case MINLOC -> 0x5800000b;
            case MAXLOC -> 0x5800000c;
            case REPLACE -> 0x5800000d;
            case NO_OP -> 0x5800000e;
        };
    }

    @Override
    public int anySource() {
        return -2;
    }

    @Override
    public int anyTag() {
        return -1;
    }

    @Override
    public int procNull() {
        return -1;
    }

    @Override
    public int undefined() {
        return -32766;
    }

    @Override
    public int commTypeShared() {
        return 1;
    }

    @Override
    public int tagUpperBoundKey() {
        return 0x64400001;
    }

    @Override
    public int threadMultiple() {
        return 3;
    }

    @Override
    public int threadSerialized() {
        return 2;
    }

    @Override
    public MemorySegment inPlace() {
        return IN_PLACE;
    }

    @Override
    public MemorySegment statusIgnore() {
        return STATUS_IGNORE;
    }

    @Override
    public long statusSize() {
        return STATUS_SIZE;
    }

    @Override
    public int statusSource(MemorySegment status) {
        return status.get(ValueLayout.JAVA_INT, SOURCE_OFFSET);
    }

    @Override
    public int statusTag(MemorySegment status) {
        return status.get(ValueLayout.JAVA_INT, TAG_OFFSET);
    }

    @Override
    public int statusError(MemorySegment status) {
        return status.get(ValueLayout.JAVA_INT, ERROR_OFFSET);
    }

    @Override
    public long statusBytes(MemorySegment status) {
        long low = Integer.toUnsignedLong(status.get(ValueLayout.JAVA_INT, COUNT_LO_OFFSET));
        long high = status.get(ValueLayout.JAVA_INT, COUNT_HI_AND_CANCELLED_OFFSET) >>> 1;
        return low + (high << 32);
    }

    @Override
    public boolean statusCancelled(MemorySegment status) {
        return (status.get(ValueLayout.JAVA_INT, COUNT_HI_AND_CANCELLED_OFFSET) & 1) != 0;
    }

    /** MPICH 4.0 (ch4): the buffer kept nothing and the count was not the length, in the point-to-point test. */
    @Override
    public boolean truncationKeepsPrefix() {
        return false;
    }

    @Override
    public int maxErrorString() {
        return 512;
    }

    @Override
    public int truncateClass() {
        return 14;
    }

    @Override
    public ErrorClass errorClass(int mpiErrorClass) {
        return switch (mpiErrorClass) {
            case 1 -> ErrorClass.BUFFER;
            case 2 -> ErrorClass.COUNT;
            case 3 -> ErrorClass.TYPE;
            case 4 -> ErrorClass.TAG;
            case 5 -> ErrorClass.COMM;
            case 6 -> ErrorClass.RANK;
            case 7 -> ErrorClass.ROOT;
            case 9 -> ErrorClass.OP;
            case 8, 10, 11, 12 -> ErrorClass.ARG; // group, topology, dims, arg
            case 14 -> ErrorClass.TRUNCATE;
            case 16 -> ErrorClass.INTERN;
            case 17 -> ErrorClass.IN_STATUS;
            case 18 -> ErrorClass.PENDING;
            case 19 -> ErrorClass.REQUEST;
            case 34 -> ErrorClass.NO_MEM;
            case 44 -> ErrorClass.UNSUPPORTED_OPERATION;
            case 45 -> ErrorClass.WIN;
            case 50 -> ErrorClass.RMA_SYNC;
            case 55 -> ErrorClass.RMA_RANGE;
            case 76, MPIX_ERR_PROC_FAILED -> ErrorClass.PROC_FAILED; // MPI_ERR_PROC_ABORTED, MPIX_ERR_PROC_FAILED
            case MPIX_ERR_PROC_FAILED_PENDING -> ErrorClass.PROC_FAILED_PENDING;
            default -> ErrorClass.OTHER;
        };
    }
}
