package mpi;

import java.util.Map;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The MPI error classes (the numbers of Open MPI 4.1's {@code mpi.h}, so that programs that
 * print or compare them see the familiar values), and how Lockstep's errors map onto them.
 */
final class ErrorClasses {
    static final int SUCCESS = 0;
    static final int BUFFER = 1;
    static final int COUNT = 2;
    static final int TYPE = 3;
    static final int TAG = 4;
    static final int COMM = 5;
    static final int RANK = 6;
    static final int REQUEST = 7;
    static final int ROOT = 8;
    static final int GROUP = 9;
    static final int OP = 10;
    static final int TOPOLOGY = 11;
    static final int DIMS = 12;
    static final int ARG = 13;
    static final int UNKNOWN = 14;
    static final int TRUNCATE = 15;
    static final int OTHER = 16;
    static final int INTERN = 17;
    static final int IN_STATUS = 18;
    static final int PENDING = 19;
    static final int ACCESS = 20;
    static final int AMODE = 21;
    static final int ASSERT = 22;
    static final int BAD_FILE = 23;
    static final int BASE = 24;
    static final int CONVERSION = 25;
    static final int DISP = 26;
    static final int DUP_DATAREP = 27;
    static final int FILE_EXISTS = 28;
    static final int FILE_IN_USE = 29;
    static final int FILE = 30;
    static final int INFO_KEY = 31;
    static final int INFO_NOKEY = 32;
    static final int INFO_VALUE = 33;
    static final int INFO = 34;
    static final int IO = 35;
    static final int KEYVAL = 36;
    static final int LOCKTYPE = 37;
    static final int NAME = 38;
    static final int NO_MEM = 39;
    static final int NOT_SAME = 40;
    static final int NO_SPACE = 41;
    static final int NO_SUCH_FILE = 42;
    static final int PORT = 43;
    static final int QUOTA = 44;
    static final int READ_ONLY = 45;
    static final int RMA_CONFLICT = 46;
    static final int RMA_SYNC = 47;
    static final int SERVICE = 48;
    static final int SIZE = 49;
    static final int SPAWN = 50;
    static final int UNSUPPORTED_DATAREP = 51;
    static final int UNSUPPORTED_OPERATION = 52;
    static final int WIN = 53;
    static final int RMA_RANGE = 68;
    static final int RMA_ATTACH = 69;
    static final int RMA_FLAVOR = 70;
    static final int RMA_SHARED = 71;
    static final int LASTCODE = 92;
    /** Open MPI's own class for an exhausted system resource. */
    static final int SYSRESOURCE = -2;

    /** Lockstep's classes by the MPI name they carry ({@link ErrorClass#mpiName()}); others are {@link #OTHER}. */
    private static final Map<String, Integer> BY_MPI_NAME = Map.ofEntries(
            Map.entry("MPI_ERR_BUFFER", BUFFER), Map.entry("MPI_ERR_COUNT", COUNT), Map.entry("MPI_ERR_TYPE", TYPE),
            Map.entry("MPI_ERR_TAG", TAG), Map.entry("MPI_ERR_COMM", COMM), Map.entry("MPI_ERR_RANK", RANK),
            Map.entry("MPI_ERR_REQUEST", REQUEST), Map.entry("MPI_ERR_ROOT", ROOT), Map.entry("MPI_ERR_GROUP", GROUP),
            Map.entry("MPI_ERR_OP", OP), Map.entry("MPI_ERR_TOPOLOGY", TOPOLOGY), Map.entry("MPI_ERR_DIMS", DIMS),
            Map.entry("MPI_ERR_ARG", ARG), Map.entry("MPI_ERR_TRUNCATE", TRUNCATE), Map.entry("MPI_ERR_OTHER", OTHER),
            Map.entry("MPI_ERR_INTERN", INTERN), Map.entry("MPI_ERR_IN_STATUS", IN_STATUS), Map.entry("MPI_ERR_PENDING", PENDING),
            Map.entry("MPI_ERR_IO", IO), Map.entry("MPI_ERR_KEYVAL", KEYVAL), Map.entry("MPI_ERR_NO_MEM", NO_MEM),
            Map.entry("MPI_ERR_INFO_KEY", INFO_KEY), Map.entry("MPI_ERR_INFO_VALUE", INFO_VALUE), Map.entry("MPI_ERR_INFO", INFO),
            Map.entry("MPI_ERR_RMA_SYNC", RMA_SYNC), Map.entry("MPI_ERR_RMA_RANGE", RMA_RANGE), Map.entry("MPI_ERR_WIN", WIN),
            Map.entry("MPI_ERR_UNSUPPORTED_OPERATION", UNSUPPORTED_OPERATION), Map.entry("MPI_ERR_ASSERT", ASSERT),
            Map.entry("MPI_ERR_INFO_NOKEY", INFO_NOKEY));

    private ErrorClasses() {
    }

    /** The MPI error class of a Lockstep error class. */
    static int of(ErrorClass errorClass) {
        return BY_MPI_NAME.getOrDefault(errorClass.mpiName(), OTHER);
    }

    /** The MPI error class of a Lockstep error. */
    static int ofLockstep(LockstepException e) {
        return of(e.errorClass());
    }

    /** {@code call} failed with {@code failure}, as an MPI exception. */
    static MPIException exception(String call, Throwable failure) {
        if (failure instanceof MPIException mpi) {
            return mpi;
        }
        int errorClass = failure instanceof LockstepException e ? of(e.errorClass()) : OTHER;
        String message = failure instanceof LockstepException ? failure.getMessage() : String.valueOf(failure);
        return new MPIException(errorClass, call + ": " + message, failure);
    }

    /** {@code call} is not something Lockstep does; {@code why} says what is missing. */
    static MPIException unsupported(String call, String why) {
        return new MPIException(UNSUPPORTED_OPERATION, call + " is not supported by Lockstep: " + why, null);
    }

    /** A bad argument found by this layer before anything was sent. */
    static MPIException argument(int errorClass, String call, String what) {
        return new MPIException(errorClass, call + ": " + what, null);
    }
}
