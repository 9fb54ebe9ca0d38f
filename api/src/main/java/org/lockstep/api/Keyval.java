package org.lockstep.api;

import java.util.Optional;

/**
 * A key under which communicators hold attributes of type {@code T} ({@code MPI_Comm_create_keyval},
 * MPI 4.1 §7.7), with what becomes of a value when its communicator is duplicated (the
 * {@link Copier}) and when the value goes: replaced, deleted, or its communicator closed (the
 * {@link Deleter}). MPI's {@code extra_state} is whatever the callbacks capture.
 *
 * <p>Keys are compared by identity. A key is not tied to a communicator, a rank or a provider;
 * the callbacks run on the thread of the call that triggers them ({@link Communicator#dup},
 * {@link Communicator#setAttribute}, {@link Communicator#deleteAttribute}, {@link Communicator#close}),
 * and an exception they throw fails that call.
 */
public final class Keyval<T> {
    /** What the duplicate of a communicator holds under this key ({@code MPI_Comm_copy_attr_function}). */
    @FunctionalInterface
    public interface Copier<T> {
        /** The duplicate's value, or empty to give the duplicate no attribute under this key. */
        Optional<T> copy(Communicator original, T value);
    }

    /** What happens to a value that leaves a communicator ({@code MPI_Comm_delete_attr_function}). */
    @FunctionalInterface
    public interface Deleter<T> {
        void delete(Communicator communicator, T value);
    }

    // ---- MPI's predefined attributes (MPI 4.1 §9.1.1, §11.10.1, §11.10.3): every communicator answers them; none can be set,
    //      deleted or freed (KEYVAL errors)

    /** {@code MPI_TAG_UB}: the largest tag the communicator's provider carries (at least 32767). */
    public static final Keyval<Integer> TAG_UB = predefined("TAG_UB");
    /** {@code MPI_HOST}: the rank of a host process, {@link Communicator#PROC_NULL} (there is none). */
    public static final Keyval<Integer> HOST = predefined("HOST");
    /**
     * {@code MPI_IO}: a rank that can do I/O, {@link Communicator#ANY_SOURCE} (every rank can:
     * each is a Java program with the whole JDK's I/O).
     */
    public static final Keyval<Integer> IO = predefined("IO");
    /** {@code MPI_WTIME_IS_GLOBAL}: whether {@link Environment#wtime()} is synchronised across the communicator's ranks. */
    public static final Keyval<Boolean> WTIME_IS_GLOBAL = predefined("WTIME_IS_GLOBAL");
    /** {@code MPI_UNIVERSE_SIZE}: how many ranks the job can have (no dynamic processes: its world's size). */
    public static final Keyval<Integer> UNIVERSE_SIZE = predefined("UNIVERSE_SIZE");
    /** {@code MPI_APPNUM}: which program of the job's command line this rank runs (one program: 0). */
    public static final Keyval<Integer> APPNUM = predefined("APPNUM");

    private final Copier<T> copier;
    private final Deleter<T> deleter;
    /** The MPI name of a predefined key, else null. */
    private final String predefinedName;
    private volatile boolean freed;

    private Keyval(Copier<T> copier, Deleter<T> deleter, String predefinedName) {
        this.copier = copier;
        this.deleter = deleter;
        this.predefinedName = predefinedName;
    }

    private static <T> Keyval<T> predefined(String name) {
        return new Keyval<>(notCopied(), nothingOnDelete(), name);
    }

    /** Whether this is one of MPI's predefined keys ({@link #TAG_UB} …), which communicators answer themselves. */
    public boolean isPredefined() {
        return predefinedName != null;
    }

    /**
     * A key whose values are copied by {@code copier} into duplicates and handed to {@code deleter}
     * when they go ({@code MPI_Comm_create_keyval}).
     */
    public static <T> Keyval<T> create(Copier<T> copier, Deleter<T> deleter) {
        if (copier == null || deleter == null) {
            throw new LockstepException(ErrorClass.ARG, "a keyval needs a copier and a deleter (Keyval.notCopied(), "
                    + "Keyval.sameValue(), Keyval.nothingOnDelete() for MPI's predefined ones)");
        }
        return new Keyval<>(copier, deleter, null);
    }

    /** A key whose values stay with their communicator and need nothing when they go. */
    public static <T> Keyval<T> create() {
        return create(notCopied(), nothingOnDelete());
    }

    /** Duplicates get no attribute under the key ({@code MPI_COMM_NULL_COPY_FN}). */
    public static <T> Copier<T> notCopied() {
        return (original, value) -> Optional.empty();
    }

    /** Duplicates get the same value ({@code MPI_COMM_DUP_FN}). */
    public static <T> Copier<T> sameValue() {
        return (original, value) -> Optional.of(value);
    }

    /** Nothing happens to a value that goes ({@code MPI_COMM_NULL_DELETE_FN}). */
    public static <T> Deleter<T> nothingOnDelete() {
        return (communicator, value) -> { };
    }

    /**
     * Frees the key ({@code MPI_Comm_free_keyval}): no communicator takes a new value under it,
     * while values set before stay, are read, copied and deleted as before.
     */
    public void free() {
        if (isPredefined()) {
            throw new LockstepException(ErrorClass.KEYVAL, "MPI_" + predefinedName + " is predefined and cannot be freed");
        }
        freed = true;
    }

    /** Whether {@link #free} was called. */
    public boolean isFreed() {
        return freed;
    }

    /** The value a duplicate of {@code original} gets for {@code value}: the copier's answer. */
    public Optional<T> copy(Communicator original, T value) {
        Optional<T> copied = copier.copy(original, value);
        if (copied == null) {
            throw new LockstepException(ErrorClass.KEYVAL, "the keyval's copier returned null instead of an Optional");
        }
        return copied;
    }

    @Override
    public String toString() {
        return isPredefined() ? "Keyval[MPI_" + predefinedName + "]" : super.toString();
    }

    /** Hands {@code value}, leaving {@code communicator}, to the deleter. */
    public void delete(Communicator communicator, T value) {
        deleter.delete(communicator, value);
    }
}
