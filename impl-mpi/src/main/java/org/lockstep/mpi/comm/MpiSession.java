package org.lockstep.mpi.comm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.MpiLibrary;
import org.lockstep.mpi.binding.NativeMemory;

/**
 * This process's use of the native MPI library, from {@code MPI_Init_thread} to
 * {@code MPI_Finalize}; MPI allows one of each per process, so there is one session per process.
 *
 * <p>The thread level asked for is {@code MPI_THREAD_MULTIPLE} ({@value #THREADS_PROPERTY}
 * {@code =serialized} asks for less); when the library grants less, calls from two threads at once
 * are refused with a clear error ({@link ThreadGuard}). Errors return to the caller
 * ({@code MPI_ERRORS_RETURN}) and become {@link LockstepException}s.
 *
 * <p>UCX, which Open MPI may use, installs handlers for SIGSEGV and SIGBUS unless told not to;
 * the JVM relies on those signals itself (implicit null checks, safepoints), so the session sets
 * {@code UCX_ERROR_SIGNALS} to empty before the library is loaded unless the user set it.
 *
 * <p>A truncated receive keeps the part that fits and reports the message's length
 * ({@value #TRUNCATION_PROPERTY}{@code =keep}, the default). Where the library keeps nothing of a
 * truncated receive (MPICH), that costs a probe before every receive; {@code =mpi} posts receives
 * directly and leaves a truncated receive as MPI does: nothing delivered, the length unknown.
 */
public final class MpiSession {
    public static final String THREADS_PROPERTY = "lockstep.mpi.threads";
    public static final String TRUNCATION_PROPERTY = "lockstep.mpi.truncation";
    private static MpiSession current;

    private final MpiLibrary library;
    private final int grantedLevel;
    private final ThreadGuard guard;
    private final BlockedCallProgress blockedCalls;
    private final int tagUpperBound;
    private final NativeTypes types;
    private final boolean probesBeforeReceive;
    private final MpiCommunicator world;
    private boolean finished;

    private MpiSession(MpiLibrary library, int grantedLevel, int tagUpperBound, boolean keepsTruncatedPrefix) {
        this.library = library;
        this.probesBeforeReceive = keepsTruncatedPrefix && !Mpi.ABI.truncationKeepsPrefix();
        this.grantedLevel = grantedLevel;
        this.guard = new ThreadGuard(grantedLevel < Mpi.ABI.threadMultiple(), levelName(grantedLevel));
        this.blockedCalls = new BlockedCallProgress(grantedLevel >= Mpi.ABI.threadMultiple());
        this.tagUpperBound = tagUpperBound;
        this.types = new NativeTypes();
        this.world = MpiCommunicator.world(this, Mpi.ABI.commWorld());
    }

    /**
     * Starts MPI in this process (once), with the library named by {@link MpiLibrary#LIBRARY_PROPERTY} in
     * {@code options} or found as {@link MpiLibrary#candidates} says.
     */
    public static synchronized MpiSession start(JobOptions options, Map<String, String> env) {
        if (current != null) {
            if (current.finished) {
                throw new LockstepException(ErrorClass.OTHER, "MPI was finalized in this process; MPI cannot start twice in one process");
            }
            return current;
        }
        String explicit = options.property(MpiLibrary.LIBRARY_PROPERTY)
                .orElse(System.getProperty(MpiLibrary.LIBRARY_PROPERTY, env.get(MpiLibrary.LIBRARY_ENVIRONMENT)));
        // Before the library loads: UCX reads its global options when it is loaded (MPICH links it),
        // or at MPI_Init (Open MPI's UCX component).
        NativeMemory.setenvIfAbsent("UCX_ERROR_SIGNALS", "");
        MpiLibrary library = MpiLibrary.loadOnce(MpiLibrary.candidates(explicit, env));
        library.abi().settingsBeforeInit().forEach(NativeMemory::setenvIfAbsent);
        int required = requiredLevel(options);
        boolean keepsTruncatedPrefix = keepsTruncatedPrefix(options);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment flag = arena.allocate(ValueLayout.JAVA_INT);
            Mpi.check((int) Mpi.INITIALIZED.invokeExact(flag), "MPI_Initialized");
            if (flag.get(ValueLayout.JAVA_INT, 0) != 0) {
                throw new LockstepException(ErrorClass.OTHER, "MPI is already initialised in this process by someone else");
            }
            MemorySegment provided = arena.allocate(ValueLayout.JAVA_INT);
            Mpi.check((int) Mpi.INIT_THREAD.invokeExact(MemorySegment.NULL, MemorySegment.NULL, required, provided), "MPI_Init_thread");
            Mpi.check((int) Mpi.COMM_SET_ERRHANDLER.invokeExact(Mpi.ABI.commWorld(), Mpi.ABI.errorsReturn()), "MPI_Comm_set_errhandler");
            Mpi.check((int) Mpi.COMM_SET_ERRHANDLER.invokeExact(Mpi.ABI.commSelf(), Mpi.ABI.errorsReturn()), "MPI_Comm_set_errhandler");
            current = new MpiSession(library, provided.get(ValueLayout.JAVA_INT, 0), tagUpperBound(arena), keepsTruncatedPrefix);
            return current;
        } catch (LockstepException e) {
            throw e;
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "starting MPI failed: " + t, t);
        }
    }

    private static int requiredLevel(JobOptions options) {
        String wanted = options.property(THREADS_PROPERTY).orElse(System.getProperty(THREADS_PROPERTY, "multiple"))
                .trim().toLowerCase(Locale.ROOT);
        return switch (wanted) {
            case "multiple" -> Mpi.ABI.threadMultiple();
            case "serialized" -> Mpi.ABI.threadSerialized();
            default -> throw new LockstepException(ErrorClass.ARG, THREADS_PROPERTY + " must be multiple or serialized, got '" + wanted + "'");
        };
    }

    private static boolean keepsTruncatedPrefix(JobOptions options) {
        String wanted = options.property(TRUNCATION_PROPERTY).orElse(System.getProperty(TRUNCATION_PROPERTY, "keep"))
                .trim().toLowerCase(Locale.ROOT);
        return switch (wanted) {
            case "keep" -> true;
            case "mpi" -> false;
            default -> throw new LockstepException(ErrorClass.ARG, TRUNCATION_PROPERTY + " must be keep or mpi, got '" + wanted + "'");
        };
    }

    private static int tagUpperBound(Arena arena) throws Throwable {
        MemorySegment value = arena.allocate(ValueLayout.ADDRESS);
        MemorySegment flag = arena.allocate(ValueLayout.JAVA_INT);
        Mpi.check((int) Mpi.COMM_GET_ATTR.invokeExact(Mpi.ABI.commWorld(), Mpi.ABI.tagUpperBoundKey(), value, flag), "MPI_Comm_get_attr");
        if (flag.get(ValueLayout.JAVA_INT, 0) == 0) {
            return 32767; // the least MPI guarantees
        }
        return value.get(ValueLayout.ADDRESS, 0).reinterpret(4).get(ValueLayout.JAVA_INT, 0);
    }

    private static String levelName(int level) {
        return switch (level) {
            case 0 -> "MPI_THREAD_SINGLE";
            case 1 -> "MPI_THREAD_FUNNELED";
            case 2 -> "MPI_THREAD_SERIALIZED";
            case 3 -> "MPI_THREAD_MULTIPLE";
            default -> "thread level " + level;
        };
    }

    /** The world communicator. */
    public MpiCommunicator world() {
        return world;
    }

    public MpiLibrary library() {
        return library;
    }

    /** Whether the library granted {@code MPI_THREAD_MULTIPLE}. */
    public boolean threadMultiple() {
        return grantedLevel >= Mpi.ABI.threadMultiple();
    }

    public String grantedLevelName() {
        return levelName(grantedLevel);
    }

    /** The largest tag the library accepts ({@code MPI_TAG_UB}). */
    public int tagUpperBound() {
        return tagUpperBound;
    }

    /**
     * Whether receives learn the message's length before taking it ({@code MPI_Mprobe}/{@code MPI_Improbe},
     * then {@code MPI_Mrecv}), so that a truncation keeps the part that fits: on a library that keeps
     * nothing of a truncated receive, unless {@value #TRUNCATION_PROPERTY} is {@code mpi}.
     */
    public boolean probesBeforeReceive() {
        return probesBeforeReceive;
    }

    ThreadGuard guard() {
        return guard;
    }

    /** Serves a thread's progress agents while it is blocked in a native call ({@link BlockedCallProgress}). */
    BlockedCallProgress blockedCalls() {
        return blockedCalls;
    }

    /** A native call that may block, under the thread guard, the thread's progress agents served meanwhile; returns its error code. */
    int blockingCall(ThreadGuard.NativeCall body) {
        BlockedCallProgress.Blocked served = blockedCalls.block();
        try {
            return guard.invoke(body);
        } finally {
            blockedCalls.unblock(served);
        }
    }

    NativeTypes types() {
        return types;
    }

    /** Ends MPI in this process ({@code MPI_Finalize}); later calls do nothing. */
    public synchronized void finish() {
        if (finished) {
            return;
        }
        finished = true;
        try {
            types.free();
            Mpi.check((int) Mpi.FINALIZE.invokeExact(), "MPI_Finalize");
        } catch (LockstepException e) {
            throw e;
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "MPI_Finalize failed: " + t, t);
        }
    }

    /** Ends the whole job after a failure this rank cannot recover from ({@code MPI_Abort}). */
    public void abort(int exitCode) {
        try {
            int ignored = (int) Mpi.ABORT.invokeExact(Mpi.ABI.commWorld(), exitCode);
        } catch (Throwable t) {
            // the process ends anyway
        }
    }

    /** The session, if MPI was started in this process. */
    public static synchronized java.util.Optional<MpiSession> current() {
        return java.util.Optional.ofNullable(current);
    }

    List<String> describe() {
        return List.of(library.path(), Mpi.ABI.name(), levelName(grantedLevel));
    }
}
