package org.lockstep.tools;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.lockstep.applications.ApplicationMain;
import org.lockstep.applications.Applications;
import org.lockstep.api.Checkpoints;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep run}: the launcher. Starts N JVM processes of a program that share a device
 * file, each told its rank; see {@link ProcessLauncher}.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs a program as N separate JVM processes that pass messages through a shared device file "
                + "(by default a new file in /dev/shm, removed afterwards). Each line a rank prints is prefixed with "
                + "its rank. Exits non-zero when a rank fails (and, with --restart-on-failure, no restart is left), "
                + "after giving the others a grace period. With --engine mpi the job goes to srun (inside a Slurm "
                + "allocation) or mpirun, across the hosts of the allocation or --hostfile, over native MPI.")
final class RunCommand implements Callable<Integer> {
    static final String DEVICE_SIZE_PROPERTY = "lockstep.device.size";
    /** The mailbox transport's job property behind --reuse-device. */
    static final String REUSE_DEVICE_PROPERTY = "lockstep.device.reuse";
    /** The mailbox transport's heap partition per rank, where an application's buffers (communicator allocate) live. */
    static final String HEAP_PER_RANK_PROPERTY = "lockstep.mailbox.heapPerRank";
    /** Room in each heap partition beside an application's buffers, for the payloads of messages in flight. */
    static final long PAYLOAD_ROOM = 16L << 20;
    /** The main class that runs an application by name (module/class). */
    static final String APPLICATION_MAIN = "org.lockstep.applications/" + ApplicationMain.class.getName();

    @Spec
    CommandSpec spec;

    @Option(names = {"-n", "--ranks"}, paramLabel = "N", required = true, description = "Number of processes.")
    int ranks;

    /** Who starts the ranks. */
    enum Engine { local, mpi }

    @Option(names = "--engine", paramLabel = "ENGINE", defaultValue = "local",
            description = "local: this launcher starts the ranks on this host (default); mpi: srun or mpirun (Open MPI or "
                    + "MPICH, whichever is installed) starts them, on several hosts if asked, and they talk through native "
                    + "MPI (provider mpi; -o lockstep.provider=hybrid for the device within each host).")
    Engine engine;

    @Option(names = "--hostfile", paramLabel = "FILE", description = "With --engine mpi: the hosts mpirun starts the ranks on.")
    Path hostfile;

    @Option(names = "--mpirun", paramLabel = "COMMAND", description = "With --engine mpi: the launcher to use (default: srun in a "
            + "Slurm allocation, else mpirun.openmpi, mpirun.mpich, mpirun or mpiexec, the first on PATH).")
    String mpirun;

    @Option(names = "--device", paramLabel = "PATH",
            description = "Device file the ranks share (default: a new /dev/shm/lockstep-<job key>).")
    Path device;

    @Option(names = "--device-size", paramLabel = "SIZE", converter = SizeList.SingleSize.class,
            description = "Capacity of the device (default: what the layout needs).")
    Long deviceSize;

    @Option(names = "--keep-device", description = "Keep the device file the launcher created.")
    boolean keepDevice;

    @Option(names = "--reuse-device", description = "If --device holds the device of a job that has ended (e.g. one kept with "
            + "--keep-device), format it afresh for this job; a job that still runs is never touched.")
    boolean reuseDevice;

    @Option(names = "--grace", paramLabel = "SECONDS", defaultValue = "10",
            description = "After a rank fails, how long the others may run before they are stopped (default: ${DEFAULT-VALUE}).")
    long graceSeconds;

    @Option(names = "--restart-on-failure",
            description = "Restart a rank that fails (same rank, next incarnation) while the others keep running; "
                    + "the restarted process recovers from its own last checkpoint.")
    boolean restartOnFailure;

    @Option(names = "--max-restarts", paramLabel = "N", defaultValue = "3",
            description = "With --restart-on-failure: restarts allowed in the whole job before a failure fails it (default: ${DEFAULT-VALUE}).")
    int maxRestarts;

    @Option(names = "--bind-to-core", description = "Pin rank r to core r mod cores, as mpirun --bind-to core (needs taskset).")
    boolean bindToCore;

    @Option(names = "--threads",
            description = "Run the ranks as threads of this JVM instead of processes: each rank calls the program's main "
                    + "in a class loader of its own (so its statics, and MPI.COMM_WORLD, are its own). A rank's System.exit ends every rank.")
    boolean threads;

    @Option(names = "--provider", paramLabel = "NAME",
            description = "The provider to run on (default: the one Lockstep chooses). embsp: each process is a real processor of an "
                    + "EM-BSP simulation of v = lockstep.embsp.vps virtual processors (default N), v/N each (with --threads, one simulation).")
    String provider;

    @Option(names = {"-cp", "--class-path"}, paramLabel = "PATH", split = ":",
            description = "Class path of the program (its classes and jars).")
    List<String> classPath = new ArrayList<>();

    @Option(names = "--jvm-option", paramLabel = "OPTION",
            description = "Option for every rank's JVM (repeatable; default: -Xms256m -Xmx256m -XX:+AlwaysPreTouch).")
    List<String> jvmOptions;

    @Option(names = "--aot-cache", paramLabel = "DIR", arity = "0..1", fallbackValue = "",
            description = "Start the ranks' JVMs from an ahead-of-time cache of their classes (JDK 25), kept in DIR (default: "
                    + "~/.cache/lockstep/aot, or $XDG_CACHE_HOME/lockstep/aot); the first job with a new JDK, jars or JVM options "
                    + "makes it from rank 0's run, after the job.")
    String aotCache;

    @Option(names = "--jfr", paramLabel = "FILE",
            description = "Record the job with Flight Recorder, each rank into FILE-rank<r>.jfr (FILE's name with -rank<r>), "
                    + "Lockstep's events included; read one with: jfr print --events org.lockstep.Collective FILE-rank0.jfr.")
    Path flightRecording;

    @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "Job property for the provider (repeatable), e.g. -o lockstep.mailbox.inlineThreshold=4096.")
    Map<String, String> properties = new LinkedHashMap<>();

    @Parameters(index = "0", paramLabel = "MAIN", description = "The program: an application by name (sort, prefix-sums, list-ranking), a main class (found on --class-path, else in a module on the module path), "
                    + "MODULE/CLASS, or a jar with a Main-Class.")
    String target;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments of the program.")
    List<String> arguments = new ArrayList<>();

    /** What each rank's JVM runs: a main class (or module/class, or jar) and its arguments. */
    record Program(String main, List<String> arguments) {
    }

    /** An application's name becomes {@link #APPLICATION_MAIN} with the name as its first argument: `lockstep run -n 4 -- sort --keys 1m`. */
    static Program program(String target, List<String> arguments) {
        if (!Applications.isApplication(target)) {
            return new Program(target, List.copyOf(arguments));
        }
        List<String> withName = new ArrayList<>(List.of(target));
        withName.addAll(arguments);
        return new Program(APPLICATION_MAIN, List.copyOf(withName));
    }

    @Override
    public Integer call() {
        if (ranks < 1) {
            throw new ParameterException(spec.commandLine(), "-n must be at least 1, got " + ranks);
        }
        if (graceSeconds < 0) {
            throw new ParameterException(spec.commandLine(), "--grace must not be negative");
        }
        if (maxRestarts < 0) {
            throw new ParameterException(spec.commandLine(), "--max-restarts must not be negative, got " + maxRestarts);
        }
        Map<String, String> jobProperties = new LinkedHashMap<>(properties);
        if (restartOnFailure) {
            // A restarted rank recovers from its checkpoint; its peers wait for it instead of failing.
            jobProperties.putIfAbsent(Checkpoints.ENABLED_PROPERTY, "true");
            jobProperties.putIfAbsent(Checkpoints.RESTART_ON_FAILURE_PROPERTY, "true");
        }
        if (reuseDevice) {
            jobProperties.put(REUSE_DEVICE_PROPERTY, "true");
        }
        if (deviceSize != null) {
            jobProperties.put(DEVICE_SIZE_PROPERTY, Long.toString(deviceSize));
        }
        Program program = program(target, arguments);
        if (provider != null) {
            jobProperties.put(Lockstep.PROVIDER_PROPERTY, provider);
        }
        sizeForApplication(target, arguments, jobProperties, ranks);
        if (threads) {
            if (engine == Engine.mpi) {
                throw new ParameterException(spec.commandLine(), "--threads runs the ranks in this JVM; --engine mpi starts processes");
            }
            return runThreads(program, jobProperties);
        }
        List<String> jvm = new ArrayList<>(jvmOptions == null ? List.of("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch") : jvmOptions);
        if (engine == Engine.mpi) {
            if (flightRecording != null) {
                throw new ParameterException(spec.commandLine(), "--jfr records the launcher's own processes; not with --engine mpi yet");
            }
            return runOnEngine(program, jvm, jobProperties);
        }
        if (hostfile != null || mpirun != null) {
            throw new ParameterException(spec.commandLine(), "--hostfile and --mpirun need --engine mpi");
        }
        if (flightRecording != null) {
            try {
                FlightRecording.clear(flightRecording);
            } catch (IOException e) {
                throw new org.lockstep.api.LockstepException(org.lockstep.api.ErrorClass.OTHER, "cannot remove the earlier rank recordings of " + flightRecording + ": " + e.getMessage());
            }
            jvm.addAll(FlightRecording.jvmOptions(flightRecording));
        }
        ProcessLauncher.Job job = new ProcessLauncher.Job(ranks, program.main(), program.arguments(), Optional.ofNullable(device),
                jobProperties, jvm, classPath, keepDevice, Duration.ofSeconds(graceSeconds), bindToCore,
                restartOnFailure ? maxRestarts : 0);
        ProcessLauncher launcher = new ProcessLauncher(System.out, System.err)
                .verbose(LockstepCommand.verbose(spec.root().commandLine().getParseResult()));
        if (aotCache != null) {
            launcher.aotCache(aotCache.isEmpty() ? RankStartCache.defaultDirectory() : Path.of(aotCache));
        }
        ProcessLauncher.Outcome outcome = launcher.run(job);
        if (flightRecording != null) {
            try {
                for (Path rankFile : FlightRecording.rankFiles(flightRecording)) {
                    System.err.println("lockstep run: flight recording " + rankFile + " " + FlightRecording.lockstepEventCounts(rankFile));
                }
                System.err.println("lockstep run: see: jfr print --events org.lockstep.Collective "
                        + FlightRecording.rankFile(flightRecording, "0"));
            } catch (IOException e) {
                System.err.println("lockstep run: could not read the flight recordings beside " + flightRecording + ": " + e.getMessage());
            }
        }
        if (!outcome.restarts().isEmpty()) {
            System.err.println("lockstep run: " + outcome.restarts().size() + " restart(s): " + outcome.restarts().stream()
                    .map(r -> "rank " + r.rank() + " as incarnation " + r.incarnation()).collect(java.util.stream.Collectors.joining(", ")));
        }
        if (outcome.firstFailedRank() >= 0) {
            System.err.println("lockstep run: failed: rank " + outcome.firstFailedRank() + " "
                    + ProcessLauncher.describeExit(outcome.exitCodes()[outcome.firstFailedRank()]));
        }
        return outcome.exitCode();
    }

    /**
     * An application's memory, sized for the problem asked for unless given. On a device provider
     * its buffers are device memory: the heap partition of each rank. Under EM-BSP they live in the
     * VPs' contexts: μ as {@code lockstep embsp} sizes it — v VPs ({@code lockstep.embsp.vps},
     * default one per rank), rounded up to the block size — while the device between the real
     * processors only carries frames, so its partitions keep their default size.
     */
    static void sizeForApplication(String target, List<String> arguments, Map<String, String> jobProperties, int ranks) {
        if (!Applications.isApplication(target)) {
            return;
        }
        if (!EmbspCommand.PROVIDER.equals(jobProperties.get(Lockstep.PROVIDER_PROPERTY))) {
            if (!jobProperties.containsKey(HEAP_PER_RANK_PROPERTY)) {
                long buffers = Applications.create(target, arguments).contextBytes(ranks);
                jobProperties.put(HEAP_PER_RANK_PROPERTY, Long.toString(Math.max(PAYLOAD_ROOM, buffers + PAYLOAD_ROOM)));
            }
            return;
        }
        if (jobProperties.containsKey(EmbspCommand.PREFIX + "contextSize")) {
            return;
        }
        long vps;
        long block;
        try {
            vps = Long.parseLong(jobProperties.getOrDefault(EmbspCommand.PREFIX + "vps", Integer.toString(ranks)).trim());
            block = new SizeList.SingleSize().convert(jobProperties.getOrDefault(EmbspCommand.PREFIX + "blockSize",
                    EmbspCommand.DEFAULT_BLOCK_SIZE).trim());
        } catch (RuntimeException e) {
            return; // the provider's own check names the bad value
        }
        if (vps < 1 || vps > Integer.MAX_VALUE || block < 1) {
            return;
        }
        long needed = Applications.create(target, arguments).contextBytes((int) vps);
        jobProperties.put(EmbspCommand.PREFIX + "contextSize", Long.toString(Math.max(1, (needed + block - 1) / block) * block));
    }

    /** {@code --engine mpi}: the engine starts the ranks; this process waits for it and returns its exit code. */
    private int runOnEngine(Program program, List<String> jvm, Map<String, String> jobProperties) {
        if (device != null || keepDevice || restartOnFailure || bindToCore || deviceSize != null) {
            throw new ParameterException(spec.commandLine(), "--device, --device-size, --keep-device, --restart-on-failure and "
                    + "--bind-to-core apply to --engine local; the MPI engine places and restarts nothing itself");
        }
        MpiEngine.Launcher launcher = MpiEngine.find(Optional.ofNullable(mpirun), System.getenv(), MpiEngine::onPath);
        ProcessLauncher.Job job = new ProcessLauncher.Job(ranks, program.main(), program.arguments(), Optional.empty(),
                jobProperties, jvm, classPath, false, Duration.ofSeconds(graceSeconds), false);
        Map<String, String> environment = MpiEngine.rankEnvironment(jobProperties);
        List<String> command = MpiEngine.command(launcher, ranks, Optional.ofNullable(hostfile),
                "root".equals(System.getProperty("user.name")), environment, ProcessLauncher.command(job));
        try {
            int exit = MpiEngine.run(command, environment, spec.commandLine().getOut());
            if (exit != 0) {
                spec.commandLine().getErr().println("lockstep run: failed: " + launcher.executable() + " " + ProcessLauncher.describeExit(exit));
            }
            return exit;
        } catch (java.io.IOException e) {
            throw new org.lockstep.api.LockstepException(org.lockstep.api.ErrorClass.NO_PROVIDER,
                    "cannot start " + launcher.executable() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    /** {@code --threads}: every rank a thread of this JVM running the program's main ({@link ThreadRanks}). */
    private int runThreads(Program program, Map<String, String> jobProperties) {
        if (restartOnFailure || device != null || keepDevice || bindToCore || jvmOptions != null || aotCache != null) {
            throw new ParameterException(spec.commandLine(), "--threads runs the ranks in this JVM: --restart-on-failure, --device, "
                    + "--keep-device, --bind-to-core, --jvm-option and --aot-cache are for processes");
        }
        if (program.main().endsWith(".jar") || program.main().contains("/")) {
            throw new ParameterException(spec.commandLine(), "--threads needs a main class on --class-path, not " + program.main());
        }
        JobOptions options = JobOptions.ofRanks(ranks).with(JobSettings.DEVICE_PROPERTY, JobSettings.DEFAULT_DEVICE);
        for (Map.Entry<String, String> e : jobProperties.entrySet()) {
            options = options.with(e.getKey(), e.getValue());
        }
        if (provider != null) {
            options = options.with(Lockstep.PROVIDER_PROPERTY, provider);
        }
        List<Path> path = classPath.stream().map(Path::of).toList();
        new ThreadRanks(path, program.main(), program.arguments()).run(options);
        return 0;
    }
}
