package org.lockstep.mpi;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.TreeMap;

import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.LockstepException;
import org.lockstep.mpi.comm.MpiCommunicator;

/**
 * What must agree between the launcher and the MPI library before a program runs: the world's size
 * and this process's rank, and that every rank was started the same way (a job started half under
 * {@code srun} and half not has two worlds that do not know each other).
 */
public final class EngineChecks {
    private EngineChecks() {
    }

    public static void check(MpiCommunicator world, LaunchEnvironment launch, Map<String, String> env) {
        String library = world.session().library().path() + " (" + world.session().library().abi().name() + ")";
        if (world.size() != launch.size()) {
            throw new LockstepException(ErrorClass.RANK, "the MPI library " + library + " has a world of " + world.size()
                    + " rank(s), but the " + launch.launcher() + " launcher started " + launch.size()
                    + ": start the job with the launcher of the same MPI (or name its library with -Dlockstep.mpi.library)");
        }
        if (world.rank() != launch.rank()) {
            throw new LockstepException(ErrorClass.RANK, "the MPI library " + library + " says this process is rank "
                    + world.rank() + ", the " + launch.launcher() + " launcher says " + launch.rank());
        }
        int[] mine = {launcherCode(launch.launcher()), env.containsKey("SLURM_JOB_ID") ? 1 : 0};
        int[] all = new int[mine.length * world.size()];
        world.allgather(MemorySegment.ofArray(mine), mine.length, Datatype.INT, MemorySegment.ofArray(all));
        Map<String, StringBuilder> byLauncher = new TreeMap<>();
        for (int r = 0; r < world.size(); r++) {
            String how = launcherName(all[r * mine.length]) + (all[r * mine.length + 1] == 1 ? " inside a Slurm allocation" : "");
            byLauncher.computeIfAbsent(how, k -> new StringBuilder()).append(r).append(' ');
        }
        if (byLauncher.size() > 1) {
            StringBuilder what = new StringBuilder();
            byLauncher.forEach((how, ranks) -> what.append("; ranks ").append(ranks.toString().trim().replace(' ', ',')).append(": ").append(how));
            throw new LockstepException(ErrorClass.ARG, "the ranks of this job were not all started the same way" + what
                    + " (start every rank with one launcher, e.g. all under srun)");
        }
    }

    private static final String[] LAUNCHERS = {"lockstep", "slurm", "openmpi", "mpich"};

    private static int launcherCode(String launcher) {
        for (int i = 0; i < LAUNCHERS.length; i++) {
            if (LAUNCHERS[i].equals(launcher)) {
                return i;
            }
        }
        return LAUNCHERS.length;
    }

    private static String launcherName(int code) {
        return code < LAUNCHERS.length ? LAUNCHERS[code] : "another launcher";
    }
}
