package org.lockstep.api;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a launcher tells each process of a multi-process job, through environment variables: its
 * rank, the world size, the device path and the job key. {@code lockstep run} sets Lockstep's own
 * variables; a process started by Slurm ({@code SLURM_PROCID}, {@code SLURM_NTASKS}), Open MPI's
 * {@code mpirun} ({@code OMPI_COMM_WORLD_RANK}, {@code OMPI_COMM_WORLD_SIZE}) or MPICH's Hydra
 * ({@code PMI_RANK}, {@code PMI_SIZE}) is recognised too, when Lockstep's variables are absent.
 *
 * @param rank       this process's rank in {@code [0, size)}
 * @param size       number of processes in the job
 * @param devicePath the shared device, e.g. {@code /dev/shm/lockstep-<job>}
 * @param jobKey     identifies the job, so that two jobs on one machine never share a device
 * @param launcher   which launcher's variables were read: {@code lockstep}, {@code slurm}, {@code openmpi} or {@code mpich}
 */
public record LaunchEnvironment(int rank, int size, String devicePath, long jobKey, String launcher) {
    public static final String RANK = "LOCKSTEP_RANK";
    public static final String SIZE = "LOCKSTEP_SIZE";
    public static final String DEVICE = "LOCKSTEP_DEVICE";
    public static final String JOB_KEY = "LOCKSTEP_JOB_KEY";
    /** Job properties for the provider, {@code key=value} pairs separated by newlines. */
    public static final String PROPERTIES = "LOCKSTEP_PROPERTIES";
    /**
     * Process id of the {@code lockstep run} launcher, the parent of every rank: a rank whose
     * parent is no longer this process ends, and while the launcher lives it, not the ranks,
     * removes the device file.
     */
    public static final String LAUNCHER_PID = "LOCKSTEP_LAUNCHER_PID";
    /**
     * {@code true} when the launcher made the device file for this job and does not keep it: should
     * the launcher die first, the job's last rank out removes it.
     */
    public static final String REMOVE_DEVICE = "LOCKSTEP_REMOVE_DEVICE";
    /**
     * Where a rank that aborts the job ({@link Lockstep#abort}) writes its {@link AbortNotice}: a
     * launcher that sets it watches the file and, when it appears, stops every rank at once and
     * exits with the notice's code.
     */
    public static final String ABORT_FILE = "LOCKSTEP_ABORT_FILE";

    /**
     * Incarnation of this process: absent or {@code 1} for a rank's first process, {@code k} for
     * the k-th start of the same rank by a launcher that restarts failed ranks (the same variable as
     * {@link Checkpoints#INCARNATION_VARIABLE}).
     */
    public static final String INCARNATION = Checkpoints.INCARNATION_VARIABLE;

    public LaunchEnvironment {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new LockstepException(ErrorClass.RANK, "launcher gave rank " + rank + " of " + size);
        }
        Objects.requireNonNull(devicePath, "devicePath");
    }

    /** The launch environment of this process, if a launcher started it. */
    public static Optional<LaunchEnvironment> current() {
        return from(System.getenv());
    }

    /** Reads a launch environment from {@code env}; empty when no launcher's variables are present. */
    public static Optional<LaunchEnvironment> from(Map<String, String> env) {
        String launcher;
        String rank;
        String size;
        if (env.containsKey(RANK) || env.containsKey(SIZE)) {
            launcher = "lockstep";
            rank = env.get(RANK);
            size = env.get(SIZE);
        } else if (env.containsKey("SLURM_PROCID") && env.containsKey("SLURM_NTASKS")) {
            launcher = "slurm";
            rank = env.get("SLURM_PROCID");
            size = env.get("SLURM_NTASKS");
        } else if (env.containsKey("OMPI_COMM_WORLD_RANK") && env.containsKey("OMPI_COMM_WORLD_SIZE")) {
            launcher = "openmpi";
            rank = env.get("OMPI_COMM_WORLD_RANK");
            size = env.get("OMPI_COMM_WORLD_SIZE");
        } else if (env.containsKey("PMI_RANK") && env.containsKey("PMI_SIZE")) {
            launcher = "mpich";
            rank = env.get("PMI_RANK");
            size = env.get("PMI_SIZE");
        } else {
            return Optional.empty();
        }
        int r = parseInt(launcher, "rank", rank);
        int n = parseInt(launcher, "size", size);
        String key = env.get(JOB_KEY);
        long jobKey;
        if (key != null) {
            try {
                jobKey = Long.parseUnsignedLong(key, 16);
            } catch (NumberFormatException e) {
                throw new LockstepException(ErrorClass.ARG, JOB_KEY + " is not a hexadecimal job key: '" + key + "'");
            }
        } else {
            // Another launcher: derive the key from its job identity so that every rank agrees on it.
            String identity = firstNonNull(env.get("SLURM_JOB_ID") == null ? null
                    : env.get("SLURM_JOB_ID") + "." + env.getOrDefault("SLURM_STEP_ID", "0"),
                    env.get("OMPI_MCA_ess_base_jobid"), env.get("PMIX_NAMESPACE"), env.get("PMI_JOBID"),
                    launcher.equals("mpich") ? hydraProxy() : null);
            if (identity == null) {
                throw new LockstepException(ErrorClass.ARG, "the " + launcher + " launcher gave no job identity; set " + JOB_KEY);
            }
            jobKey = fnv1a(launcher + ":" + identity);
        }
        String device = env.getOrDefault(DEVICE, "/dev/shm/lockstep-" + Long.toHexString(jobKey));
        return Optional.of(new LaunchEnvironment(r, n, device, jobKey, launcher));
    }

    /**
     * How many hosts {@code launcher} spread the job over, where it says so: Slurm's
     * {@code SLURM_STEP_NUM_NODES} (else {@code SLURM_JOB_NUM_NODES}, {@code SLURM_NNODES}), Open MPI's
     * {@code OMPI_MCA_orte_num_nodes}; 0 when it does not. A transport that needs every rank on one
     * host checks it.
     */
    public static int hostCount(String launcher, Map<String, String> env) {
        List<String> variables = switch (launcher) {
            case "slurm" -> List.of("SLURM_STEP_NUM_NODES", "SLURM_JOB_NUM_NODES", "SLURM_NNODES");
            case "openmpi" -> List.of("OMPI_MCA_orte_num_nodes");
            default -> List.of();
        };
        for (String variable : variables) {
            String value = env.get(variable);
            if (value != null && !value.isBlank()) {
                try {
                    return Integer.parseInt(value.trim());
                } catch (NumberFormatException e) {
                    throw new LockstepException(ErrorClass.ARG, variable + " is not a number: '" + value + "'");
                }
            }
        }
        return 0;
    }

    /**
     * MPICH's Hydra names no job in the environment; the ranks it starts on one host share their
     * parent, its proxy, so host and proxy identify the job there (a device is per host anyway).
     */
    private static String hydraProxy() {
        String host;
        try {
            host = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "");
        }
        String where = host;
        return ProcessHandle.current().parent().map(p -> where + "/hydra-proxy-" + p.pid()).orElse(null);
    }

    /**
     * The incarnation the launcher gave this process in {@value #INCARNATION}: 1 when absent.
     *
     * @throws LockstepException {@link ErrorClass#ARG} if it is not a number of at least 1
     */
    public static long incarnation(Map<String, String> env) {
        String value = env.get(INCARNATION);
        if (value == null || value.isBlank()) {
            return 1;
        }
        try {
            long incarnation = Long.parseLong(value.trim());
            if (incarnation >= 1) {
                return incarnation;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new LockstepException(ErrorClass.ARG, INCARNATION + " must be a number of at least 1, got '" + value + "'");
    }

    /** The job properties the launcher passed in {@value #PROPERTIES}, added to {@code options}. */
    public static JobOptions withLaunchProperties(JobOptions options, Map<String, String> env) {
        String text = env.get(PROPERTIES);
        if (text == null || text.isBlank()) {
            return options;
        }
        JobOptions result = options;
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                result = result.with(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
            }
        }
        return result;
    }

    private static int parseInt(String launcher, String what, String value) {
        if (value == null) {
            throw new LockstepException(ErrorClass.ARG, "the " + launcher + " launcher set no " + what);
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new LockstepException(ErrorClass.ARG, "the " + launcher + " launcher's " + what + " is not a number: '" + value + "'");
        }
    }

    private static String firstNonNull(String... values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return null;
    }

    private static long fnv1a(String text) {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            hash ^= text.charAt(i);
            hash *= 0x100000001b3L;
        }
        return hash;
    }
}
