package org.lockstep.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The bootstrap: finds a {@link LockstepProvider} and runs programs on it.
 *
 * <p>A provider is chosen the way the JDK and SLF4J choose theirs: an explicit name given to
 * {@link #provider(String)}; else the system property {@value #PROVIDER_PROPERTY}; else the
 * environment variable {@value #PROVIDER_ENVIRONMENT}; else the only provider that
 * {@link ServiceLoader} finds (or, among several, the one named {@value #DEFAULT_PROVIDER}).
 * When none fits, the error lists the providers that are installed.
 *
 * <pre>{@code
 * Lockstep.run(4, world -> {
 *     int next = (world.rank() + 1) % world.size();
 *     int prev = (world.rank() + world.size() - 1) % world.size();
 *     world.sendrecv(...);
 * });
 * }</pre>
 */
public final class Lockstep {
    public static final String PROVIDER_PROPERTY = "lockstep.provider";
    /** Prefix of the system properties that {@link #run(JobOptions, RankProgram)} passes to the provider. */
    public static final String PROPERTY_PREFIX = "lockstep.";
    public static final String PROVIDER_ENVIRONMENT = "LOCKSTEP_PROVIDER";
    /**
     * System property: {@code true} asks a Lockstep main that a launcher other than {@code lockstep run}
     * started (mpirun, srun) for the stack trace of a typed failure, which it otherwise reports on one line.
     */
    public static final String STACK_TRACES_PROPERTY = "lockstep.stackTraces";
    /** The provider preferred when several are installed and none is named. */
    public static final String DEFAULT_PROVIDER = "mailbox";

    /** The world of the rank whose program the current thread runs (see {@link #currentWorld()}). */
    private static final ScopedValue<Communicator> CURRENT_WORLD = ScopedValue.newInstance();

    private Lockstep() {
    }

    /**
     * Runs {@code program} on {@code ranks} ranks over the default provider: as threads of this JVM,
     * or — when a launcher started this process ({@link LaunchEnvironment}) — as this process's
     * one rank of the launcher's world, whose size the launcher decides.
     */
    public static void run(int ranks, RankProgram program) {
        run(JobOptions.ofRanks(ranks), program);
    }

    /**
     * Runs {@code program} as {@link #run(int, RankProgram)} does, with provider settings. System
     * properties whose names start with {@value #PROPERTY_PREFIX} are added to {@code options}
     * where they do not set the same key, so that a program can be configured from its command
     * line ({@code -Dlockstep.mailbox.inlineThreshold=4096}).
     */
    public static void run(JobOptions options, RankProgram program) {
        options = withSystemProperties(options);
        program = boundToItsWorld(program);
        Optional<LaunchEnvironment> launch = LaunchEnvironment.current();
        if (launch.isPresent()) {
            JobOptions launched = LaunchEnvironment.withLaunchProperties(
                    new JobOptions(launch.get().size(), options.properties()), System.getenv());
            checkOptions(launched).runAttached(launched, launch.get(), program);
            return;
        }
        checkOptions(options).runInThreads(options, program);
    }

    /**
     * Checks {@code options} before a job runs: every {@value #PROPERTY_PREFIX} property must be
     * one that Lockstep or an installed provider reads (else the error names the nearest known
     * one), and the chosen provider must accept the values ({@link LockstepProvider#checkOptions}).
     * {@link #run(JobOptions, RankProgram)} calls it; so does a launcher, before it starts any process.
     *
     * @return the provider the options choose
     * @throws LockstepException {@link ErrorClass#ARG} for an unknown property or a bad value, or
     *                           {@link ErrorClass#NO_PROVIDER}
     */
    public static LockstepProvider checkOptions(JobOptions options) {
        List<LockstepProvider> installed = installed();
        new PropertyNames(installed).check(options);
        LockstepProvider chosen = provider(options.property(PROVIDER_PROPERTY).orElse(null));
        chosen.checkOptions(options);
        return chosen;
    }

    /**
     * The world communicator of the rank whose program the calling thread runs inside
     * {@link #run}; empty elsewhere (and on threads the program starts itself). This is how code
     * that is not handed the world finds it: the MPI bindings' {@code MPI.Init} called from a
     * {@code main} that a launcher runs as a rank.
     */
    public static Optional<Communicator> currentWorld() {
        return CURRENT_WORLD.isBound() ? Optional.of(CURRENT_WORLD.get()) : Optional.empty();
    }

    /**
     * Joins the calling thread to a world as one rank and returns it, for programs whose entry
     * point is their own {@code main} rather than a {@link RankProgram} (the MPI bindings'
     * {@code MPI.Init}): when a launcher started this process ({@link LaunchEnvironment}), its
     * rank of the launcher's world ({@link LockstepProvider#attachWorld}); otherwise a world of this
     * one rank (MPI's singleton start), which needs {@code options.ranks()} to be 1. Providers and
     * properties are chosen as {@link #run(JobOptions, RankProgram)} chooses them.
     *
     * @throws LockstepException {@link ErrorClass#ARG} for more than one rank without a launcher
     */
    public static AttachedWorld attach(JobOptions options) {
        JobOptions withProperties = withSystemProperties(options);
        Optional<LaunchEnvironment> launch = LaunchEnvironment.current();
        if (launch.isPresent()) {
            JobOptions launched = LaunchEnvironment.withLaunchProperties(
                    new JobOptions(launch.get().size(), withProperties.properties()), System.getenv());
            return provider(launched.property(PROVIDER_PROPERTY).orElse(null)).attachWorld(launched, launch.get());
        }
        if (withProperties.ranks() != 1) {
            throw new LockstepException(ErrorClass.ARG, "a thread can join a world of " + withProperties.ranks()
                    + " ranks only in a process a launcher started (lockstep run, mpirun, srun); alone it is a world of 1");
        }
        LockstepProvider provider = provider(withProperties.property(PROVIDER_PROPERTY).orElse(null));
        return KeptRank.start("lockstep-singleton-rank", program -> provider.runInThreads(withProperties, program));
    }

    /**
     * Ends the whole job with {@code exitCode} as its exit status ({@code MPI_Abort}; Lockstep
     * aborts every rank of the job, whatever communicator the program named), without waiting for
     * any other rank. Never returns normally.
     * <ul>
     * <li>In a process of its own (a launcher's rank, or a program alone): tells the launcher in
     *     {@link LaunchEnvironment#ABORT_FILE} when it set one (the launcher then stops the other
     *     ranks at once and exits with {@code exitCode}), flushes {@code System.out} and
     *     {@code System.err}, and exits the JVM with {@code exitCode}; its peers see it as failed.
     *     Another launcher ({@code mpirun}, {@code srun}) ends the job on the non-zero exit.</li>
     * <li>On a rank that is a thread of a world of threads ({@link #run} in this JVM): throws
     *     {@link JobAbortedError}; the JVM holds other ranks or is an application's, so ending it
     *     is for whoever runs the world ({@code lockstep run --threads} does, with the code).</li>
     * </ul>
     *
     * @param reason one line saying why, for the launcher's report
     * @throws JobAbortedError on a rank that is a thread of a world of threads
     */
    public static void abort(int exitCode, String reason) {
        Optional<LaunchEnvironment> launch = LaunchEnvironment.current();
        if (launch.isEmpty() && CURRENT_WORLD.isBound()) {
            throw new JobAbortedError(exitCode, reason);
        }
        String noticeFile = System.getenv(LaunchEnvironment.ABORT_FILE);
        if (launch.isPresent() && noticeFile != null && !noticeFile.isBlank()) {
            try {
                new AbortNotice(launch.get().rank(), exitCode, reason).write(java.nio.file.Path.of(noticeFile));
            } catch (java.io.IOException | RuntimeException e) {
                System.err.println("lockstep: could not tell the launcher of the abort (" + e.getMessage()
                        + "); it sees the rank's exit instead");
            }
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().exit(exitCode);
    }

    /** {@code program}, run with its world bound to the thread for {@link #currentWorld()}. */
    private static RankProgram boundToItsWorld(RankProgram program) {
        return world -> ScopedValue.where(CURRENT_WORLD, world).call(() -> {
            program.run(world);
            return null;
        });
    }

    /** {@code options} with the {@value #PROPERTY_PREFIX} system properties it does not set itself. */
    static JobOptions withSystemProperties(JobOptions options) {
        JobOptions result = options;
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith(PROPERTY_PREFIX) && options.property(key).isEmpty()) {
                result = result.with(key, System.getProperty(key));
            }
        }
        return result;
    }

    /** The provider chosen by property, environment or discovery. */
    public static LockstepProvider provider() {
        return provider(null);
    }

    /**
     * The provider called {@code name}; when {@code name} is null, the one chosen by property,
     * environment or discovery.
     *
     * @throws LockstepException {@link ErrorClass#NO_PROVIDER} listing what is installed
     */
    public static LockstepProvider provider(String name) {
        List<LockstepProvider> installed = installed();
        String wanted = firstPresent(name, System.getProperty(PROVIDER_PROPERTY), System.getenv(PROVIDER_ENVIRONMENT));
        if (wanted != null) {
            return installed.stream().filter(p -> p.name().equals(wanted)).findFirst()
                    .orElseThrow(() -> noProvider("no Lockstep provider named '" + wanted + "'", installed));
        }
        if (installed.size() == 1) {
            return installed.getFirst();
        }
        return installed.stream().filter(p -> p.name().equals(DEFAULT_PROVIDER)).findFirst()
                .orElseThrow(() -> noProvider(installed.isEmpty() ? "no Lockstep provider is installed"
                        : "several Lockstep providers are installed and none is chosen; set -D" + PROVIDER_PROPERTY, installed));
    }

    /** Every provider that {@link ServiceLoader} finds, with its name and description. */
    public static Map<String, String> providers() {
        return installed().stream().collect(Collectors.toMap(LockstepProvider::name, LockstepProvider::description,
                (a, b) -> a, java.util.TreeMap::new));
    }

    private static List<LockstepProvider> installed() {
        List<LockstepProvider> found = new ArrayList<>();
        ServiceLoader.load(LockstepProvider.class, Lockstep.class.getClassLoader()).forEach(found::add);
        if (found.isEmpty()) {
            ServiceLoader.load(LockstepProvider.class).forEach(found::add);
        }
        return found;
    }

    private static String firstPresent(String... candidates) {
        for (String c : candidates) {
            if (c != null && !c.isBlank()) {
                return c.trim();
            }
        }
        return null;
    }

    private static LockstepException noProvider(String what, List<LockstepProvider> installed) {
        String list = installed.isEmpty() ? "none (put a provider such as lockstep-impl-pcie on the module or class path)"
                : installed.stream().map(p -> p.name() + " (" + p.description() + ")").collect(Collectors.joining(", "));
        return new LockstepException(ErrorClass.NO_PROVIDER, what + "; installed: " + list);
    }

    /** Empty unless a provider is installed under this name. */
    public static Optional<LockstepProvider> find(String name) {
        return installed().stream().filter(p -> p.name().equals(name)).findFirst();
    }
}
