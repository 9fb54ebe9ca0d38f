package org.lockstep.mpi.abi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.util.EnumMap;
import java.util.Map;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The Open MPI ABI (Open MPI 4.x, {@code libmpi.so.40}; facts from its {@code mpi.h}). A handle
 * is a pointer; a predefined handle is the address of a predefined object the library exports
 * ({@code MPI_COMM_WORLD} is {@code &ompi_mpi_comm_world}), so this descriptor resolves them from
 * the loaded library.
 *
 * <pre>
 * MPI_Status (24 bytes)
 *  0        4        8        12          16                  24
 *  +--------+--------+--------+-----------+-------------------+
 *  | SOURCE |  TAG   | ERROR  | cancelled | ucount (size_t,   |
 *  | int    |  int   | int    | int       |  bytes received)  |
 *  +--------+--------+--------+-----------+-------------------+
 * </pre>
 */
public final class OpenMpiAbi extends MpiAbi {
    /** A symbol every Open MPI library exports and no other library does. */
    public static final String SIGNATURE_SYMBOL = "ompi_mpi_comm_world";

    private static final long STATUS_SIZE = 24;
    private static final long SOURCE_OFFSET = 0;
    private static final long TAG_OFFSET = 4;
    private static final long ERROR_OFFSET = 8;
    private static final long CANCELLED_OFFSET = 12;
    private static final long UCOUNT_OFFSET = 16;

    private static final Map<NativeType, String> TYPE_SYMBOLS = new EnumMap<>(Map.ofEntries(
            Map.entry(NativeType.BYTE, "ompi_mpi_byte"),
            Map.entry(NativeType.INT8, "ompi_mpi_int8_t"),
            Map.entry(NativeType.UINT8, "ompi_mpi_uint8_t"),
            Map.entry(NativeType.C_BOOL, "ompi_mpi_c_bool"),
            Map.entry(NativeType.INT16, "ompi_mpi_int16_t"),
            Map.entry(NativeType.UINT16, "ompi_mpi_uint16_t"),
            Map.entry(NativeType.INT32, "ompi_mpi_int32_t"),
            Map.entry(NativeType.INT64, "ompi_mpi_int64_t"),
            Map.entry(NativeType.FLOAT, "ompi_mpi_float"),
            Map.entry(NativeType.DOUBLE, "ompi_mpi_double"),
            Map.entry(NativeType.INT_INT, "ompi_mpi_2int"),
            Map.entry(NativeType.FLOAT_INT, "ompi_mpi_float_int")));

    private final long commWorld;
    private final long commSelf;
    private final long commNull;
    private final long requestNull;
    private final long errorsReturn;
    private final long infoNull;
    private final long winNull;
    private final Map<NativeType, Long> types = new EnumMap<>(NativeType.class);
    private final Map<NativeOp, Long> ops = new EnumMap<>(NativeOp.class);

    /** Resolves the predefined objects of the Open MPI library behind {@code library}. */
    public OpenMpiAbi(SymbolLookup library) {
        commWorld = address(library, "ompi_mpi_comm_world");
        commSelf = address(library, "ompi_mpi_comm_self");
        commNull = address(library, "ompi_mpi_comm_null");
        requestNull = address(library, "ompi_request_null");
        errorsReturn = address(library, "ompi_mpi_errors_return");
        infoNull = address(library, "ompi_mpi_info_null");
        winNull = address(library, "ompi_mpi_win_null");
        TYPE_SYMBOLS.forEach((type, symbol) -> types.put(type, address(library, symbol)));
        for (NativeOp op : NativeOp.values()) {
            ops.put(op, address(library, "ompi_mpi_op_" + op.name().toLowerCase(java.util.Locale.ROOT)));
        }
    }

    private static long address(SymbolLookup library, String symbol) {
        return library.find(symbol).orElseThrow(() -> new LockstepException(ErrorClass.NO_PROVIDER,
                "the Open MPI library does not export " + symbol + " (not an Open MPI 4 or 5 ABI)")).address();
    }

    @Override
    public String name() {
        return "Open MPI";
    }

    @Override
    public ValueLayout handleLayout() {
        return ValueLayout.JAVA_LONG;
    }

    @Override
    public long commWorld() {
        return commWorld;
    }

    @Override
    public long commSelf() {
        return commSelf;
    }

    @Override
    public long commNull() {
        return commNull;
    }

    @Override
    public long requestNull() {
        return requestNull;
    }

    @Override
    public long errorsReturn() {
        return errorsReturn;
    }

    @Override
    public long infoNull() {
        return infoNull;
    }

    @Override
    public long winNull() {
        return winNull;
    }

    @Override
    public int lockExclusive() {
        return 1;
    }

    @Override
    public int modeNoCheck() {
        return 1;
    }

    @Override
    public int lockShared() {
        return 2;
    }

    /**
     * No: without RDMA get and put in its transports ({@link #settingsBeforeInit}) Open MPI 4.1 has
     * no one-sided component for memory it did not allocate (osc rdma needs them; MPI_Win_create
     * fails with MPI_ERR_WIN), while MPI_Win_allocate on one host is its shared-memory component.
     */
    @Override
    public boolean windowsOverCallerMemory() {
        return false;
    }

    @Override
    public long datatype(NativeType type) {
        return types.get(type);
    }

    @Override
    public long op(NativeOp op) {
        return ops.get(op);
    }

    @Override
    public int anySource() {
        return -1;
    }

    @Override
    public int anyTag() {
        return -1;
    }

    @Override
    public int procNull() {
        return -2;
    }

    @Override
    public int undefined() {
        return -32766;
    }

    @Override
    public int commTypeShared() {
        return 0;
    }

    @Override
    public int tagUpperBoundKey() {
        return 0;
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
        return MemorySegment.ofAddress(1);
    }

    @Override
    public MemorySegment statusIgnore() {
        return MemorySegment.NULL;
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
        return status.get(ValueLayout.JAVA_LONG, UCOUNT_OFFSET);
    }

    @Override
    public boolean statusCancelled(MemorySegment status) {
        return status.get(ValueLayout.JAVA_INT, CANCELLED_OFFSET) != 0;
    }

    /** Open MPI 4.1 (ob1/vader, UCX): checked by the point-to-point test. */
    @Override
    public boolean truncationKeepsPrefix() {
        return true;
    }

    /**
     * No RDMA get or put in the point-to-point transports of one host. Open MPI 4.1's ob1 layer, on a
     * transport offering them (self, vader with its CMA single copy, tcp's put), moves a rendezvous
     * message whole into the receive buffer even when the receive is truncated: a message of
     * 4095 bytes that a rank sends itself writes 2048 bytes past a 2047-byte buffer (a C program
     * shows it; MPICH keeps within the buffer), which corrupted the native heap of the JVM. Without
     * get and put, rendezvous messages go as copied fragments, which stop at the buffer's end. The
     * cost is the single copy between processes of one host (large messages are copied twice).
     * A user who sets these explicitly (mpirun's --mca, OMPI_MCA_*) keeps them and the risk.
     */
    @Override
    public Map<String, String> settingsBeforeInit() {
        return Map.of(
                "OMPI_MCA_btl_self_flags", "send,inplace",
                "OMPI_MCA_btl_vader_flags", "send,inplace,atomics,fetching-atomics",
                "OMPI_MCA_btl_tcp_flags", "send,inplace,need-ack,need-csum");
    }

    @Override
    public int maxErrorString() {
        return 256;
    }

    @Override
    public int truncateClass() {
        return 15;
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
            case 7 -> ErrorClass.REQUEST;
            case 8 -> ErrorClass.ROOT;
            case 10 -> ErrorClass.OP;
            case 9, 11, 12, 13 -> ErrorClass.ARG; // group, topology, dims, arg
            case 15 -> ErrorClass.TRUNCATE;
            case 17 -> ErrorClass.INTERN;
            case 18 -> ErrorClass.IN_STATUS;
            case 19 -> ErrorClass.PENDING;
            case 39 -> ErrorClass.NO_MEM;
            case 52 -> ErrorClass.UNSUPPORTED_OPERATION;
            case 53 -> ErrorClass.WIN;
            case 47 -> ErrorClass.RMA_SYNC;
            case 68 -> ErrorClass.RMA_RANGE;
            default -> ErrorClass.OTHER;
        };
    }
}
