package mpi;

import java.util.Optional;

import org.lockstep.api.AttachedWorld;
import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;

/**
 * This rank's MPI session, from {@code MPI.Init} to {@code MPI.Finalize}: the world it joined and
 * how it joined it. One class loader holds one rank's {@code mpi} classes (a process, or one
 * rank's loader when ranks are threads), so the session is a static of this class.
 *
 * <p>How {@code Init} finds its world, in order:
 * <ol>
 * <li>the world of the rank whose program this thread runs ({@link Lockstep#currentWorld()}): a
 *     launcher ran {@code main} as a rank (threads, EM-BSP virtual processors);</li>
 * <li>else {@link Lockstep#attach}: this process joins the world of the launcher that started it
 *     ({@code lockstep run}, {@code mpirun}, {@code srun}), or is a world of its own (MPI's
 *     singleton start) when nothing launched it.</li>
 * </ol>
 */
final class Session {
    private static volatile Session current;
    private static volatile boolean finalized;

    final Communicator world;
    final Communicator self;
    /**
     * A private copy of the world, apart from the program's messages: the ports' connect requests
     * ({@link Ports}), the name service's records ({@link Names}) and Finalize's barrier.
     */
    final Communicator ports;
    /** Null when the world belongs to the launcher's rank program, which leaves it when {@code main} returns. */
    private final AttachedWorld attached;
    final int threadLevel;
    final Thread initThread;
    final String[] arguments;

    private Session(Communicator world, AttachedWorld attached, int threadLevel, String[] arguments) {
        this.world = world;
        this.attached = attached;
        this.self = world.split(world.rank(), 0);
        this.ports = world.dup();
        this.threadLevel = threadLevel;
        this.initThread = Thread.currentThread();
        this.arguments = arguments == null ? new String[0] : arguments.clone();
    }

    static synchronized Session open(String call, String[] arguments, int threadLevel) throws MPIException {
        if (current != null || finalized) {
            throw new MPIException(ErrorClasses.OTHER, call + ": MPI is already " + (finalized ? "finalized" : "initialized")
                    + " in this rank (when ranks are threads, each needs its own class loader: run it with lockstep run --threads)",
                    null);
        }
        Optional<Communicator> bound = Lockstep.currentWorld();
        AttachedWorld attached = null;
        Communicator world;
        try {
            if (bound.isPresent()) {
                world = bound.get();
            } else {
                attached = Lockstep.attach(JobOptions.ofRanks(1));
                world = attached.world();
            }
            current = new Session(world, attached, threadLevel, arguments);
        } catch (LockstepException e) {
            if (attached != null) {
                attached.fail(e);
            }
            throw ErrorClasses.exception(call, e);
        }
        return current;
    }

    /** The open session, or the reason there is none. */
    static Session get() throws MPIException {
        Session s = current;
        if (s == null) {
            throw new MPIException(ErrorClasses.OTHER, finalized ? "MPI is finalized" : "MPI is not initialized (call MPI.Init first)", null);
        }
        return s;
    }

    static boolean isOpen() {
        return current != null;
    }

    static boolean isFinalized() {
        return finalized;
    }

    /** MPI_Finalize: every rank arrives (it is collective), then this rank leaves the world it attached to. */
    static synchronized void close(String call) throws MPIException {
        Session s = get();
        try {
            s.ports.barrier(); // on a private copy of the world: Finalize must not match a program's barrier on COMM_WORLD
            s.self.close();
            s.ports.close();
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        } finally {
            current = null;
            finalized = true;
            if (s.attached != null) {
                s.attached.close();
            }
        }
    }

    /**
     * Ends the job, as {@code MPI_Abort} and a fatal error handler do, and says why on one line:
     * {@link Lockstep#abort} ends every rank with {@code code} as exit status (a process exits and
     * its launcher stops the others; a rank that is a thread throws {@link org.lockstep.api.JobAbortedError}
     * to the launcher that runs the threads). The rank does not leave its world first, as leaving
     * may wait on the peers; they see its end as a failure all the same.
     */
    static void abortJob(int code, String why) {
        Session s = current;
        String rank = s == null ? "" : "rank " + s.world.rank() + ": ";
        System.err.println("MPI abort: " + rank + why);
        System.err.flush();
        Lockstep.abort(code, rank + why);
    }
}
