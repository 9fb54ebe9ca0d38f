package org.lockstep.tck;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The launcher the kit hands its rank processes to ({@code --launcher}): an MPI's {@code mpirun}
 * or {@code mpiexec}, with the user's extra flags. Open MPI is told it may start more ranks than
 * there are cores, and (as root) that root may run them; its ranks get the job key through
 * {@code -x}, as MPICH's get the whole environment.
 *
 * @param command the launcher, e.g. {@code mpirun.openmpi}
 * @param flags   extra flags before {@code -np}, e.g. {@code --mca btl self,tcp}
 */
public record KitLauncher(String command, List<String> flags) {
    private static final long VERSION_SECONDS = 30;

    public KitLauncher {
        Objects.requireNonNull(command, "command");
        if (command.isBlank()) {
            throw new IllegalArgumentException("--launcher needs a command, e.g. mpirun.openmpi");
        }
        flags = List.copyOf(flags);
    }

    /** Which MPI's launcher it is, from its {@code --version}; a launcher that cannot be run is a {@link LaunchFailed}. */
    boolean isOpenMpi() {
        try {
            Process p = new ProcessBuilder(command, "--version").redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(VERSION_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new LaunchFailed("the launcher '" + command + " --version' did not answer in " + VERSION_SECONDS + " s");
            }
            return text.contains("Open MPI") || text.contains("OpenRTE");
        } catch (IOException e) {
            throw new LaunchFailed("cannot run the launcher '" + command + "': " + e.getMessage()
                    + " (is an MPI installed? e.g. apt-get install openmpi-bin or mpich)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LaunchFailed("interrupted while asking '" + command + "' its version");
        }
    }

    /** The command that starts {@code ranks} copies of {@code rank}, passing {@code forwarded} variables on. */
    List<String> command(boolean openMpi, int ranks, List<String> forwarded, List<String> rank) {
        List<String> c = new ArrayList<>(List.of(command));
        if (openMpi) {
            c.add("--oversubscribe");
            for (String v : forwarded) {
                c.addAll(List.of("-x", v));
            }
        }
        c.addAll(flags);
        c.addAll(List.of("-np", Integer.toString(ranks)));
        c.addAll(rank);
        return c;
    }

    /** The launcher could not start a job, or no job of it got as far as the first rule. */
    static final class LaunchFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LaunchFailed(String message) {
            super(message);
        }
    }
}
