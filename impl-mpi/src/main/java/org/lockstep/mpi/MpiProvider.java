package org.lockstep.mpi;

import java.util.Map;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;
import org.lockstep.mpi.comm.MpiCommunicator;
import org.lockstep.mpi.comm.MpiSession;

/**
 * Provider {@value #NAME}: the API over a native MPI library (Open MPI, MPICH) bound at run time
 * with the FFM API. One rank per process, started by the library's launcher ({@code mpirun},
 * {@code mpiexec}, {@code srun}) or by {@code lockstep run --engine mpi}; a single process without
 * a launcher is a world of one rank.
 */
public final class MpiProvider implements LockstepProvider {
    public static final String NAME = "mpi";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "native MPI (Open MPI, MPICH) through the FFM API: one rank per process, under mpirun or srun";
    }

    @Override
    public void runInThreads(JobOptions options, RankProgram program) {
        if (options.ranks() != 1) {
            throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, "the " + NAME + " provider runs one rank per process, "
                    + "so it cannot run " + options.ranks() + " ranks as threads: start the program under mpirun -np "
                    + options.ranks() + " (or lockstep run --engine mpi -n " + options.ranks() + ")");
        }
        MpiSession session = MpiSession.start(options, System.getenv());
        run(session, session.world(), program);
    }

    @Override
    public void runAttached(JobOptions options, LaunchEnvironment launch, RankProgram program) {
        MpiSession session = MpiSession.start(options, System.getenv());
        MpiCommunicator world = session.world();
        EngineChecks.check(world, launch, System.getenv());
        run(session, world, program);
    }

    private static void run(MpiSession session, MpiCommunicator world, RankProgram program) {
        try {
            program.run(world);
        } catch (RuntimeException | Error e) {
            // No MPI_Finalize: the launcher sees a rank that ended without it and stops the others.
            throw e;
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.OTHER, "rank " + world.rank() + " failed: " + t, t);
        }
        world.close();
        session.finish();
    }

    /** For tests and reports: the environment a session would read. */
    static Map<String, String> environment() {
        return System.getenv();
    }
}
