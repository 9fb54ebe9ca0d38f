package org.lockstep.api;

/**
 * The class of a {@link LockstepException}, after MPI's error classes (MPI 4.1 §9.4).
 * Each constant names the MPI class it corresponds to, so that programs ported from MPI keep their
 * error handling.
 */
public enum ErrorClass {
    /** Invalid buffer: null, read-only where it must be written, or not large enough for the count. */
    BUFFER("MPI_ERR_BUFFER"),
    /** Invalid count argument, e.g. negative. */
    COUNT("MPI_ERR_COUNT"),
    /** Invalid datatype, or a datatype that does not fit the buffer or operation. */
    TYPE("MPI_ERR_TYPE"),
    /** Invalid tag: negative and not {@link Communicator#ANY_TAG} where that is allowed, or above the upper bound. */
    TAG("MPI_ERR_TAG"),
    /** Invalid communicator, or a communicator that has been closed or freed. */
    COMM("MPI_ERR_COMM"),
    /** Invalid group, or a group that is not a subset of the communicator's where it must be. */
    GROUP("MPI_ERR_GROUP"),
    /** Invalid rank: outside {@code [0, size)} and not a wildcard or {@link Communicator#PROC_NULL}. */
    RANK("MPI_ERR_RANK"),
    /** Invalid root for a rooted collective. */
    ROOT("MPI_ERR_ROOT"),
    /** Invalid request, e.g. waited on after it was freed. */
    REQUEST("MPI_ERR_REQUEST"),
    /** Invalid reduction operation, or an operation not defined for the datatype. */
    OP("MPI_ERR_OP"),
    /** An argument that no more specific class covers. */
    ARG("MPI_ERR_ARG"),
    /** A message was longer than the receive buffer; the receive buffer holds the first part. */
    TRUNCATE("MPI_ERR_TRUNCATE"),
    /** One or more requests of a multi-completion call are still pending. */
    PENDING("MPI_ERR_PENDING"),
    /** The error is in the status of one of the requests (multi-completion calls). */
    IN_STATUS("MPI_ERR_IN_STATUS"),
    /** Memory (or device space) could not be had. */
    NO_MEM("MPI_ERR_NO_MEM"),
    /** The provider does not support the operation (a capability it does not declare). */
    UNSUPPORTED_OPERATION("MPI_ERR_UNSUPPORTED_OPERATION"),
    /** A process this operation involves has failed (ULFM's MPI_ERR_PROC_FAILED). */
    PROC_FAILED("MPI_ERR_PROC_FAILED"),
    /** A wildcard receive could not complete because some possible sender failed (ULFM). */
    PROC_FAILED_PENDING("MPI_ERR_PROC_FAILED_PENDING"),
    /** The device is missing, too small, foreign, corrupt or of another layout version. */
    DEVICE("MPI_ERR_IO"),
    /** No provider could be found or started. */
    NO_PROVIDER("LOCKSTEP_ERR_NO_PROVIDER"),
    /** Invalid attribute key: a {@link Keyval} that was freed, or a callback that broke its contract. */
    KEYVAL("MPI_ERR_KEYVAL"),
    /** An {@link Info} key that is empty, null or longer than {@link Info#MAX_KEY}. */
    INFO_KEY("MPI_ERR_INFO_KEY"),
    /** An {@link Info} value that is empty, null or longer than {@link Info#MAX_VALUE}. */
    INFO_VALUE("MPI_ERR_INFO_VALUE"),
    /** An {@link Info} key that is not set, where one must be. */
    INFO_NOKEY("MPI_ERR_INFO_NOKEY"),
    /** Invalid window: null, freed, or not the kind the call needs (a {@link Window#sharedQuery} of a window that is not shared). */
    WIN("MPI_ERR_WIN"),
    /** A one-sided call outside the synchronisation it needs: an access outside an epoch, an unmatched fence, post, start, complete, wait or unlock. */
    RMA_SYNC("MPI_ERR_RMA_SYNC"),
    /** A one-sided access that reaches outside the target's window. */
    RMA_RANGE("MPI_ERR_RMA_RANGE"),
    /** An assertion ({@link Window.Assertion}) that the synchronisation call it is given to does not take. */
    ASSERT("MPI_ERR_ASSERT"),
    /** A topology that does not fit its communicator, or a topology call on a communicator without that topology. */
    TOPOLOGY("MPI_ERR_TOPOLOGY"),
    /** Invalid dimensions of a Cartesian topology: negative, not multiplying out, or a direction outside them. */
    DIMS("MPI_ERR_DIMS"),
    /** An internal invariant failed: a bug in Lockstep or the provider. */
    INTERN("MPI_ERR_INTERN"),
    /** Anything else. */
    OTHER("MPI_ERR_OTHER");

    private final String mpiName;

    ErrorClass(String mpiName) {
        this.mpiName = mpiName;
    }

    /** The MPI error class this corresponds to, e.g. {@code MPI_ERR_TRUNCATE}. */
    public String mpiName() {
        return mpiName;
    }
}
