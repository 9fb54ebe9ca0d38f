package org.lockstep.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;

/**
 * {@code lockstep run --engine mpi}: hands the job to an existing engine instead of starting the
 * processes itself — {@code srun} inside a Slurm allocation, else the {@code mpirun} of Open MPI
 * or MPICH, whichever is installed. The engine starts one JVM per rank (on the hosts of its
 * allocation or {@code --hostfile}), and the ranks talk through native MPI: provider {@code mpi}
 * unless the job names another (e.g. {@code -o lockstep.provider=hybrid}). Lockstep never opens a
 * connection of its own to another host.
 */
final class MpiEngine {
    /** A launcher found on this host. */
    enum Kind { SLURM, OPEN_MPI, MPICH }

    record Launcher(Kind kind, String executable) {
    }

    /** Launchers in the order they are looked for: Open MPI's and MPICH's own names first, then the generic ones. */
    private static final List<String> MPIRUN_NAMES = List.of("mpirun.openmpi", "mpirun.mpich", "mpiexec.hydra", "mpirun", "mpiexec");

    private MpiEngine() {
    }

    /**
     * The launcher for this job: {@code explicit} if given, else {@code srun} when this process runs
     * inside a Slurm allocation, else the first {@code mpirun} on the path.
     *
     * @param which finds an executable on the path
     * @throws LockstepException {@link ErrorClass#NO_PROVIDER} when none is installed
     */
    static Launcher find(Optional<String> explicit, Map<String, String> env, Function<String, Optional<Path>> which) {
        if (explicit.isPresent()) {
            String name = explicit.get();
            Path path = name.contains("/") ? Path.of(name) : which.apply(name).orElseThrow(() -> new LockstepException(
                    ErrorClass.NO_PROVIDER, "--mpirun " + name + ": not found on PATH"));
            return new Launcher(kindOf(path, which), path.toString());
        }
        if (env.containsKey("SLURM_JOB_ID") && !env.containsKey("SLURM_STEP_ID")) {
            Optional<Path> srun = which.apply("srun");
            if (srun.isPresent()) {
                return new Launcher(Kind.SLURM, srun.get().toString());
            }
        }
        if (env.containsKey("SLURM_STEP_ID") && env.containsKey("SLURM_PROCID")) {
            throw new LockstepException(ErrorClass.ARG, "lockstep run is itself a task of an srun step (SLURM_PROCID="
                    + env.get("SLURM_PROCID") + "): start it once, inside the allocation (salloc/sbatch), and it starts the ranks with srun");
        }
        for (String name : MPIRUN_NAMES) {
            Optional<Path> found = which.apply(name);
            if (found.isPresent()) {
                return new Launcher(kindOf(found.get(), which), found.get().toString());
            }
        }
        throw new LockstepException(ErrorClass.NO_PROVIDER, "--engine mpi needs an MPI launcher, and none is installed (looked for "
                + String.join(", ", MPIRUN_NAMES) + " on PATH, and srun inside a Slurm allocation); install Open MPI or MPICH "
                + "(Debian: apt-get install openmpi-bin mpich) or use --engine local");
    }

    /** Open MPI's or MPICH's mpirun, by its name or where its link points. */
    static Kind kindOf(Path executable, Function<String, Optional<Path>> which) {
        String resolved = executable.toString();
        try {
            resolved = executable.toRealPath().toString();
        } catch (IOException e) {
            // keep the name as given
        }
        String name = resolved.substring(resolved.lastIndexOf('/') + 1);
        if (name.equals("srun")) {
            return Kind.SLURM;
        }
        if (name.contains("openmpi") || name.equals("orterun") || name.equals("prterun")) {
            return Kind.OPEN_MPI;
        }
        return Kind.MPICH; // mpirun.mpich, mpiexec.hydra, and MPICH's derivatives
    }

    /**
     * The engine's command line: {@code ranks} copies of {@code rankCommand}, with {@code environment}
     * passed to every rank (on every host).
     */
    static List<String> command(Launcher launcher, int ranks, Optional<Path> hostfile, boolean root,
                                Map<String, String> environment, List<String> rankCommand) {
        List<String> command = new ArrayList<>(List.of(launcher.executable()));
        switch (launcher.kind()) {
            case OPEN_MPI -> {
                command.addAll(List.of("-np", Integer.toString(ranks), "--tag-output"));
                if (hostfile.isPresent()) {
                    command.addAll(List.of("--hostfile", hostfile.get().toString()));
                } else {
                    command.add("--oversubscribe"); // one host: as many ranks as asked, as lockstep run --engine local does
                }
                if (root) {
                    command.add("--allow-run-as-root");
                }
                environment.keySet().forEach(name -> command.addAll(List.of("-x", name)));
            }
            case MPICH -> {
                command.addAll(List.of("-np", Integer.toString(ranks), "-prepend-rank"));
                hostfile.ifPresent(f -> command.addAll(List.of("-f", f.toString())));
                environment.forEach((name, value) -> command.addAll(List.of("-genv", name, value)));
            }
            case SLURM -> {
                command.addAll(List.of("-n", Integer.toString(ranks), "--label", "--export=ALL"));
                if (hostfile.isPresent()) {
                    throw new LockstepException(ErrorClass.ARG, "--hostfile does not apply under Slurm: the allocation names the hosts");
                }
            }
        }
        command.addAll(rankCommand);
        return command;
    }

    /** The job properties every rank gets, with the provider defaulting to {@code mpi}. */
    static Map<String, String> rankEnvironment(Map<String, String> jobProperties) {
        Map<String, String> properties = new LinkedHashMap<>(jobProperties);
        properties.putIfAbsent(Lockstep.PROVIDER_PROPERTY, "mpi");
        String text = properties.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("\n"));
        return Map.of(LaunchEnvironment.PROPERTIES, text);
    }

    /** Runs the job under the engine, copying what it prints to {@code out}; returns its exit code. */
    static int run(List<String> command, Map<String, String> environment, java.io.PrintWriter out) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(environment);
        // The engine gives each rank its own variables; ours would make every rank think it is rank 0 of a lockstep launch.
        for (String own : List.of(LaunchEnvironment.RANK, LaunchEnvironment.SIZE, LaunchEnvironment.DEVICE, LaunchEnvironment.JOB_KEY)) {
            builder.environment().remove(own);
        }
        Process process = builder.start();
        try (java.io.BufferedReader lines = process.inputReader()) {
            String line;
            while ((line = lines.readLine()) != null) {
                out.println(line);
                out.flush();
            }
            return process.waitFor();
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            throw e;
        }
    }

    /** An executable called {@code name} on {@code PATH}. */
    static Optional<Path> onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
