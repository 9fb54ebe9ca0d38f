package org.lockstep.mpi.binding;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.mpi.abi.MpiAbi;

/**
 * The MPI functions the provider calls, bound with the FFM API to the library {@link MpiLibrary#loadOnce} found.
 * Each is a {@code static final} method handle, so that the JIT inlines the call like any other:
 * call it with {@code invokeExact} and exactly the Java types its signature string gives
 * ({@code p} a {@link MemorySegment} pointer, {@code i} an {@code int}, {@code h} a handle as a
 * {@code long}, {@code a} an {@code MPI_Aint} as a {@code long}); every function returns its error
 * code as an {@code int}.
 *
 * <p>The class initialises on first use, after {@link MpiLibrary#loadOnce} chose the library;
 * using it before is an error of the provider ({@link ErrorClass#INTERN}).
 */
public final class Mpi {
    /** The library bound: the one {@link MpiLibrary#loadOnce} chose. */
    public static MpiLibrary library() {
        return MpiLibrary.loaded();
    }

    public static final MpiAbi ABI = library().abi();
    private static final ValueLayout HANDLE = ABI.handleLayout();

    // ---- environment
    public static final MethodHandle INIT_THREAD = bind("MPI_Init_thread", "ppip");
    public static final MethodHandle INITIALIZED = bind("MPI_Initialized", "p");
    public static final MethodHandle FINALIZED = bind("MPI_Finalized", "p");
    public static final MethodHandle FINALIZE = bind("MPI_Finalize", "");
    public static final MethodHandle ABORT = bind("MPI_Abort", "hi");
    public static final MethodHandle ERROR_CLASS = bind("MPI_Error_class", "ip");
    public static final MethodHandle ERROR_STRING = bind("MPI_Error_string", "ipp");
    public static final MethodHandle ALLOC_MEM = bind("MPI_Alloc_mem", "ahp");
    public static final MethodHandle FREE_MEM = bind("MPI_Free_mem", "p");

    // ---- communicators
    public static final MethodHandle COMM_SET_ERRHANDLER = bind("MPI_Comm_set_errhandler", "hh");
    public static final MethodHandle COMM_RANK = bind("MPI_Comm_rank", "hp");
    public static final MethodHandle COMM_SIZE = bind("MPI_Comm_size", "hp");
    public static final MethodHandle COMM_DUP = bind("MPI_Comm_dup", "hp");
    public static final MethodHandle COMM_SPLIT = bind("MPI_Comm_split", "hiip");
    public static final MethodHandle COMM_SPLIT_TYPE = bind("MPI_Comm_split_type", "hiihp");
    public static final MethodHandle COMM_FREE = bind("MPI_Comm_free", "p");
    public static final MethodHandle COMM_GET_ATTR = bind("MPI_Comm_get_attr", "hipp");
    public static final MethodHandle COMM_GROUP = bind("MPI_Comm_group", "hp");
    public static final MethodHandle COMM_CREATE_GROUP = bind("MPI_Comm_create_group", "hhip");
    public static final MethodHandle GROUP_INCL = bind("MPI_Group_incl", "hipp");
    public static final MethodHandle GROUP_FREE = bind("MPI_Group_free", "p");

    // ---- point-to-point
    public static final MethodHandle SEND = bind("MPI_Send", "pihiih");
    public static final MethodHandle SSEND = bind("MPI_Ssend", "pihiih");
    public static final MethodHandle RECV = bind("MPI_Recv", "pihiihp");
    public static final MethodHandle ISEND = bind("MPI_Isend", "pihiihp");
    public static final MethodHandle ISSEND = bind("MPI_Issend", "pihiihp");
    public static final MethodHandle IRECV = bind("MPI_Irecv", "pihiihp");
    public static final MethodHandle PROBE = bind("MPI_Probe", "iihp");
    public static final MethodHandle IPROBE = bind("MPI_Iprobe", "iihpp");
    public static final MethodHandle WAIT = bind("MPI_Wait", "pp");
    public static final MethodHandle TEST = bind("MPI_Test", "ppp");
    public static final MethodHandle CANCEL = bind("MPI_Cancel", "p");
    public static final MethodHandle MPROBE = bind("MPI_Mprobe", "iihpp");
    public static final MethodHandle MRECV = bind("MPI_Mrecv", "pihpp");
    public static final MethodHandle IMPROBE = bind("MPI_Improbe", "iihppp");

    // ---- datatypes and operations
    public static final MethodHandle TYPE_CREATE_STRUCT = bind("MPI_Type_create_struct", "ipppp");
    public static final MethodHandle TYPE_CREATE_RESIZED = bind("MPI_Type_create_resized", "haap");
    public static final MethodHandle TYPE_CONTIGUOUS = bind("MPI_Type_contiguous", "ihp");
    public static final MethodHandle TYPE_COMMIT = bind("MPI_Type_commit", "p");
    public static final MethodHandle TYPE_FREE = bind("MPI_Type_free", "p");
    public static final MethodHandle OP_CREATE = bind("MPI_Op_create", "pip");
    public static final MethodHandle OP_FREE = bind("MPI_Op_free", "p");

    // ---- collectives
    public static final MethodHandle BARRIER = bind("MPI_Barrier", "h");
    public static final MethodHandle BCAST = bind("MPI_Bcast", "pihih");
    public static final MethodHandle GATHER = bind("MPI_Gather", "pihpihih");
    public static final MethodHandle GATHERV = bind("MPI_Gatherv", "pihppphih");
    public static final MethodHandle SCATTER = bind("MPI_Scatter", "pihpihih");
    public static final MethodHandle SCATTERV = bind("MPI_Scatterv", "ppphpihih");
    public static final MethodHandle ALLGATHER = bind("MPI_Allgather", "pihpihh");
    public static final MethodHandle ALLGATHERV = bind("MPI_Allgatherv", "pihppphh");
    public static final MethodHandle ALLTOALL = bind("MPI_Alltoall", "pihpihh");
    public static final MethodHandle ALLTOALLV = bind("MPI_Alltoallv", "ppphppphh");
    public static final MethodHandle REDUCE = bind("MPI_Reduce", "ppihhih");
    public static final MethodHandle ALLREDUCE = bind("MPI_Allreduce", "ppihhh");
    public static final MethodHandle REDUCE_SCATTER = bind("MPI_Reduce_scatter", "ppphhh");
    public static final MethodHandle REDUCE_SCATTER_BLOCK = bind("MPI_Reduce_scatter_block", "ppihhh");
    public static final MethodHandle SCAN = bind("MPI_Scan", "ppihhh");
    public static final MethodHandle EXSCAN = bind("MPI_Exscan", "ppihhh");
    public static final MethodHandle IBARRIER = bind("MPI_Ibarrier", "hp");
    public static final MethodHandle IBCAST = bind("MPI_Ibcast", "pihihp");
    public static final MethodHandle IALLREDUCE = bind("MPI_Iallreduce", "ppihhhp");
    public static final MethodHandle IGATHER = bind("MPI_Igather", "pihpihihp");
    public static final MethodHandle IGATHERV = bind("MPI_Igatherv", "pihppphihp");
    public static final MethodHandle ISCATTER = bind("MPI_Iscatter", "pihpihihp");
    public static final MethodHandle ISCATTERV = bind("MPI_Iscatterv", "ppphpihihp");
    public static final MethodHandle IALLGATHER = bind("MPI_Iallgather", "pihpihhp");
    public static final MethodHandle IALLGATHERV = bind("MPI_Iallgatherv", "pihppphhp");
    public static final MethodHandle IALLTOALL = bind("MPI_Ialltoall", "pihpihhp");
    public static final MethodHandle IALLTOALLV = bind("MPI_Ialltoallv", "ppphppphhp");
    public static final MethodHandle IREDUCE = bind("MPI_Ireduce", "ppihhihp");
    public static final MethodHandle IREDUCE_SCATTER = bind("MPI_Ireduce_scatter", "ppphhhp");
    public static final MethodHandle IREDUCE_SCATTER_BLOCK = bind("MPI_Ireduce_scatter_block", "ppihhhp");
    public static final MethodHandle ISCAN = bind("MPI_Iscan", "ppihhhp");
    public static final MethodHandle IEXSCAN = bind("MPI_Iexscan", "ppihhhp");

    // ---- one-sided (windows are made with displacement unit 1: the provider passes byte offsets)
    public static final MethodHandle WIN_ALLOCATE = bind("MPI_Win_allocate", "aihhpp");
    public static final MethodHandle WIN_ALLOCATE_SHARED = bind("MPI_Win_allocate_shared", "aihhpp");
    public static final MethodHandle WIN_SHARED_QUERY = bind("MPI_Win_shared_query", "hippp");
    public static final MethodHandle WIN_CREATE = bind("MPI_Win_create", "paihhp");
    public static final MethodHandle WIN_SET_ERRHANDLER = bind("MPI_Win_set_errhandler", "hh");
    public static final MethodHandle WIN_FREE = bind("MPI_Win_free", "p");
    public static final MethodHandle WIN_FENCE = bind("MPI_Win_fence", "ih");
    public static final MethodHandle WIN_POST = bind("MPI_Win_post", "hih");
    public static final MethodHandle WIN_START = bind("MPI_Win_start", "hih");
    public static final MethodHandle WIN_COMPLETE = bind("MPI_Win_complete", "h");
    public static final MethodHandle WIN_WAIT = bind("MPI_Win_wait", "h");
    public static final MethodHandle WIN_LOCK = bind("MPI_Win_lock", "iiih");
    public static final MethodHandle WIN_UNLOCK = bind("MPI_Win_unlock", "ih");
    public static final MethodHandle WIN_FLUSH = bind("MPI_Win_flush", "ih");
    public static final MethodHandle PUT = bind("MPI_Put", "pihiaihh");
    public static final MethodHandle GET = bind("MPI_Get", "pihiaihh");
    public static final MethodHandle ACCUMULATE = bind("MPI_Accumulate", "pihiaihhh");
    public static final MethodHandle GET_ACCUMULATE = bind("MPI_Get_accumulate", "pihpihiaihhh");
    public static final MethodHandle COMPARE_AND_SWAP = bind("MPI_Compare_and_swap", "ppphiah");

    private Mpi() {
    }

    /**
     * A downcall handle of {@code name} whose parameters are {@code signature}, one letter each
     * (see the class comment), returning {@code int}.
     */
    static MethodHandle bind(String name, String signature) {
        MemorySegment function = library().symbols().find(name).orElseThrow(() -> new LockstepException(ErrorClass.NO_PROVIDER,
                library().path() + " has no " + name + " (" + ABI + ")"));
        MemoryLayout[] nativeLayouts = new MemoryLayout[signature.length()];
        Class<?>[] javaTypes = new Class<?>[signature.length()];
        for (int i = 0; i < signature.length(); i++) {
            switch (signature.charAt(i)) {
                case 'p' -> {
                    nativeLayouts[i] = ValueLayout.ADDRESS;
                    javaTypes[i] = MemorySegment.class;
                }
                case 'i' -> {
                    nativeLayouts[i] = ValueLayout.JAVA_INT;
                    javaTypes[i] = int.class;
                }
                case 'h' -> {
                    nativeLayouts[i] = HANDLE;
                    javaTypes[i] = long.class;
                }
                case 'a' -> {
                    nativeLayouts[i] = ValueLayout.JAVA_LONG;
                    javaTypes[i] = long.class;
                }
                default -> throw new IllegalArgumentException("signature letter " + signature.charAt(i) + " of " + name);
            }
        }
        MethodHandle raw = Linker.nativeLinker().downcallHandle(function, FunctionDescriptor.of(ValueLayout.JAVA_INT, nativeLayouts));
        // Handles travel as long; an ABI whose handles are C ints narrows them here.
        return MethodHandles.explicitCastArguments(raw, MethodType.methodType(int.class, javaTypes));
    }

    /** Throws the MPI error {@code code} returned by {@code call}, if it is not {@code MPI_SUCCESS}. */
    public static void check(int code, String call) {
        if (code != 0) {
            throw MpiErrors.exception(code, call);
        }
    }
}
