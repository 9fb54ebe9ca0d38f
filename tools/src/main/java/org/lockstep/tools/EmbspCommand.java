package org.lockstep.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.applications.Application;
import org.lockstep.applications.Applications;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep embsp}: runs an application as v virtual processors of the EM-BSP simulator
 * (provider {@code embsp}, seed 003), every simulator parameter given on the command line. Ends
 * with one key=value line for scripts: the simulator's ({@code vps=… cores=… supersteps=… seconds=…
 * swap_bytes=… delivery_bytes=… bound_bytes=…} and more), then the application's result and the
 * process's peak resident memory.
 *
 * <p>Exit codes: 0 success; 1 the run failed; 2 a usage error or a configuration the simulator
 * cannot run (the message names the value and the MPI error class).
 */
@Command(name = "embsp", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs an application as V virtual processors of the EM-BSP simulator (PEMS2): K memory partitions of "
                + "MU bytes, every VP's context swapped to the disks at each superstep (kept in memory if all fit in --memory).",
                "Applications:", "%n" + "  sort         --keys N [--seed S]%n  prefix-sums  --values N%n  list-ranking --nodes N"},
        footer = {"%nEvery run ends with one line: vps=... cores=... supersteps=... seconds=... swap_bytes=... delivery_bytes=... "
                + "bound_bytes=... (bound: the analytic I/O bound of the run's collectives)."})
final class EmbspCommand implements Callable<Integer> {
    /** Exit code of a configuration the simulator cannot run. */
    static final int IMPOSSIBLE = LockstepCommand.USAGE;
    static final String PROVIDER = "embsp";
    static final String PREFIX = "lockstep.embsp.";
    /** The simulator's block size B when none is given (its own default too). */
    static final String DEFAULT_BLOCK_SIZE = "64k";

    enum Io { sync, async, mmap }

    enum Threads { platform, virtual, sequential }

    enum Delivery { direct, indirect }

    @Spec
    CommandSpec spec;

    @Option(names = "--vps", paramLabel = "V", defaultValue = "8", description = "Virtual processors v (default: ${DEFAULT-VALUE}).")
    int vps;

    @Option(names = "--cores", paramLabel = "K", description = "Cores k: memory partitions and VPs running at once (default: min(v, CPUs)).")
    Integer cores;

    @Option(names = "--context-size", paramLabel = "MU", converter = SizeList.SingleSize.class,
            description = "Bytes of each VP's context mu, a multiple of B (default: what the application needs, rounded up to B).")
    Long contextSize;

    @Option(names = "--disks", paramLabel = "D1,D2", split = ",",
            description = "Disks: files to create, or directories to create one in; one per disk (default: the temp directory).")
    List<Path> disks;

    @Option(names = "--block-size", paramLabel = "B", converter = SizeList.SingleSize.class, defaultValue = DEFAULT_BLOCK_SIZE,
            description = "Disk block B, a multiple of each disk's device block (default: ${DEFAULT-VALUE}).")
    long blockSize;

    @Option(names = "--io", paramLabel = "sync|async|mmap", defaultValue = "sync",
            description = "I/O driver: O_DIRECT synchronous, asynchronous with requests in flight, memory-mapped (default: ${DEFAULT-VALUE}).")
    Io io;

    @Option(names = "--threads", paramLabel = "platform|virtual|sequential", defaultValue = "virtual",
            description = "Thread driver: platform threads, virtual threads, one VP at a time (default: ${DEFAULT-VALUE}).")
    Threads threads;

    @Option(names = "--alpha", paramLabel = "A", defaultValue = "8",
            description = "alpha: delivery writes a VP keeps in flight (default: ${DEFAULT-VALUE}).")
    int alpha;

    @Option(names = "--memory", paramLabel = "BYTES", converter = SizeList.SingleSize.class,
            description = "Memory budget of each real processor: k*mu, staging and cache fit in it, and its JVM is sized from it "
                    + "(heap, direct memory, the VPs' stacks) so that the process stays within it + 128 MiB (default: half of physical memory).")
    Long memory;

    @Option(names = "--bench-out", paramLabel = "FILE",
            description = "Write time and I/O per superstep as gnuplot data to FILE, the script FILE.gp, and (with gnuplot installed) its plot, FILE's name .png.")
    Path benchOut;

    @Option(names = "--progress", paramLabel = "SECONDS", defaultValue = "10",
            description = "Seconds between progress lines (logged at INFO, to standard error by default); 0 for none (default: ${DEFAULT-VALUE}).")
    long progressSeconds;

    @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "Further simulator property (repeatable), e.g. -o lockstep.embsp.direct=false.")
    Map<String, String> properties = new LinkedHashMap<>();

    @Option(names = {"-P", "--processors"}, paramLabel = "P", defaultValue = "1",
            description = "Real processors: P processes on this host, each simulating v/P VPs with its own K partitions and "
                    + "its own disk files; they talk through the mailbox transport (default: ${DEFAULT-VALUE}).")
    int processors;

    @Option(names = "--delivery", paramLabel = "direct|indirect", defaultValue = "direct",
            description = "Alltoallv's delivery: PEMS2's direct delivery into contexts, or PEMS1's indirect area on disk (default: ${DEFAULT-VALUE}).")
    Delivery delivery;

    @Option(names = {"-cp", "--class-path"}, paramLabel = "PATH", split = ":",
            description = "Class path of a program of your own (its classes and jars): PROGRAM is then its main class or jar.")
    List<String> classPath = new ArrayList<>();

    @Option(names = "--module", paramLabel = "MODULE/CLASS",
            description = "A program of your own as a main class in a module on the module path, instead of PROGRAM.")
    String module;

    @Option(names = "--jvm-option", paramLabel = "OPTION",
            description = "Option for each processor's JVM when processes are started (repeatable; default: sized from --memory).")
    List<String> jvmOptions;

    /** The lockstep script's question before it starts the JVM: which options (see {@link EmbspJvm}). */
    @Option(names = "--print-jvm-options", hidden = true)
    boolean printJvmOptions;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PROGRAM",
            description = "The application: sort, prefix-sums or list-ranking; or a main class or jar of your own (with -cp).")
    String program;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments of the application.")
    List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        if (progressSeconds < 0) {
            throw new ParameterException(spec.commandLine(), "--progress must not be negative (0: no progress lines), got "
                    + progressSeconds);
        }
        if (module == null && program == null) {
            throw new ParameterException(spec.commandLine(), "name a PROGRAM (or --module MODULE/CLASS)");
        }
        if (processors < 1) {
            return impossible(spec.commandLine().getErr(), new LockstepException(ErrorClass.ARG,
                    "--processors (P) must be at least 1, got " + processors));
        }
        boolean ownProgram = module != null || !classPath.isEmpty() || program.endsWith(".jar");
        if (!ownProgram && !Applications.isApplication(program)) {
            return impossible(spec.commandLine().getErr(), new LockstepException(ErrorClass.ARG, "no application '" + program
                    + "'; there are " + Applications.names() + ", or a program of your own with -cp PATH MAIN or --module MODULE/CLASS"));
        }
        boolean launches = ownProgram || processors > 1;
        if (printJvmOptions) {
            return printJvmOptions(launches);
        }
        if (launches) {
            return new EmbspLaunch(this).run();
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Application app;
        JobOptions job;
        Path stats = Files.createTempFile("lockstep-embsp-", ".stats");
        try {
            try {
                app = Applications.create(program, arguments);
                job = job(app, stats);
            } catch (LockstepException e) {
                return impossible(err, e);
            }
            LockstepProvider provider = Lockstep.find(PROVIDER).orElseThrow(() -> new LockstepException(ErrorClass.NO_PROVIDER,
                    "the EM-BSP provider '" + PROVIDER + "' is not installed; installed: " + Lockstep.providers().keySet()));
            AtomicBoolean started = new AtomicBoolean();
            AtomicLong digest = new AtomicLong();
            long start = System.nanoTime();
            try {
                provider.runInThreads(job, world -> {
                    started.set(true);
                    long d = app.run(world);
                    if (world.rank() == 0) {
                        digest.set(d);
                    }
                });
            } catch (LockstepException e) {
                if (!started.get()) {
                    return impossible(err, e);
                }
                throw e;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            String simulator = Files.readString(stats, StandardCharsets.UTF_8).trim();
            if (benchOut != null) {
                drawBench(benchOut, err);
            }
            err.flush();
            out.println(String.format(Locale.ROOT, "%s app=%s size=%d digest=%d check=ok app_seconds=%.3f mb_per_s=%.1f peak_rss_bytes=%d %s",
                    simulator, app.name(), app.size(), digest.get(), seconds, app.dataBytes() / seconds / 1e6, peakResidentBytes(),
                    ioPerInput(simulator, app.dataBytes())));
            return 0;
        } finally {
            Files.deleteIfExists(stats);
        }
    }

    /** The simulator's job: v ranks and every parameter as a property; μ from the application unless given. */
    JobOptions job(Application app, Path stats) {
        if (vps < 1) {
            throw new LockstepException(ErrorClass.ARG, "--vps (v) must be at least 1, got " + vps);
        }
        long needed = app.contextBytes(vps);
        long mu = contextSize != null ? contextSize : (needed + blockSize - 1) / blockSize * blockSize;
        if (mu < needed) {
            throw new LockstepException(ErrorClass.NO_MEM, "--context-size (mu) = " + mu + " bytes is less than the " + needed
                    + " bytes " + app.name() + " of size " + app.size() + " allocates on each of v = " + vps
                    + " VPs; give at least that, or more VPs");
        }
        return job(mu, stats);
    }

    /** The simulator's job with contexts of {@code mu} bytes. */
    JobOptions job(long mu, Path stats) {
        if (vps < 1) {
            throw new LockstepException(ErrorClass.ARG, "--vps (v) must be at least 1, got " + vps);
        }
        if (vps % processors != 0) {
            throw new LockstepException(ErrorClass.ARG, "v = " + vps + " (--vps) cannot be spread evenly over P = " + processors
                    + " real processors (--processors): each simulates v/P, so v must be a multiple of P");
        }
        int local = vps / processors;
        int k = cores != null ? cores : Math.min(local, Runtime.getRuntime().availableProcessors());
        if (k < 1) {
            throw new LockstepException(ErrorClass.ARG, "--cores (k) must be at least 1, got " + k);
        }
        if (local < k) {
            throw new LockstepException(ErrorClass.ARG, (processors == 1 ? "v = " + vps + " (--vps)"
                    : "v/P = " + vps + "/" + processors + " = " + local + " (--vps, --processors)") + " is fewer than k = " + k
                    + " cores (--cores): every partition needs a virtual processor");
        }
        if (blockSize <= 0 || Long.bitCount(blockSize) != 1) {
            throw new LockstepException(ErrorClass.ARG, "--block-size (B) must be a positive power of two, got " + blockSize);
        }
        JobOptions job = JobOptions.ofRanks(vps).with(Lockstep.PROVIDER_PROPERTY, PROVIDER);
        for (Map.Entry<String, String> e : properties.entrySet()) {
            job = job.with(e.getKey(), e.getValue());
        }
        job = job.with(PREFIX + "vps", Integer.toString(vps))
                .with(PREFIX + "cores", Integer.toString(k))
                .with(PREFIX + "contextSize", Long.toString(mu))
                .with(PREFIX + "blockSize", Long.toString(blockSize))
                .with(PREFIX + "io", io.name())
                .with(PREFIX + "threads", threads.name())
                .with(PREFIX + "alpha", Integer.toString(alpha))
                .with(PREFIX + "progress", Long.toString(progressSeconds))
                .with(PREFIX + "delivery", delivery.name())
                .with(PREFIX + "statsOut", stats.toString());
        if (disks != null) {
            job = job.with(PREFIX + "disks", String.join(",", disks.stream().map(Path::toString).toList()));
        }
        if (!properties.containsKey(PREFIX + "keepResident")) {
            // contexts that all fit in the budget never swap
            job = job.with(PREFIX + "keepResident", "true");
        }
        if (!properties.containsKey(PREFIX + "lazySwapIn")) {
            // a swap-in reads only the pages the superstep touches, a swap-out writes only those written
            job = job.with(PREFIX + "lazySwapIn", "true");
        }
        if (memory != null || !properties.containsKey(PREFIX + "memory")) {
            EmbspJvm jvm = jvm();
            if (jvm.simulatorBudget() <= 0) {
                throw new LockstepException(ErrorClass.NO_MEM, "--memory " + jvm.budget() / EmbspJvm.MIB + " MiB cannot hold the heap of "
                        + jvm.localVps() + " VPs (" + jvm.heap() / EmbspJvm.MIB + " MiB: " + EmbspJvm.HEAP_PER_VP / EmbspJvm.KIB
                        + " KiB each and the program's own); give more memory or fewer VPs per processor");
            }
            job = job.with(PREFIX + "memory", Long.toString(jvm.simulatorBudget()));
        }
        if (benchOut != null) {
            job = job.with(PREFIX + "benchOut", benchOut.toString());
        }
        return job;
    }

    /** The sizing of each real processor's JVM. */
    EmbspJvm jvm() {
        return EmbspJvm.of(memory, Math.max(1, vps / Math.max(1, processors)), programHeapPerVp());
    }

    /** The heap each rank of a built-in application holds of its own; 0 for a program of one's own (unknown: --jvm-option sizes it). */
    private long programHeapPerVp() {
        if (module != null || !classPath.isEmpty() || program == null || !Applications.isApplication(program)) {
            return 0;
        }
        try {
            return Applications.create(program, arguments).heapBytes(Math.max(1, vps));
        } catch (LockstepException e) {
            return 0; // the run itself reports the bad argument
        }
    }

    /**
     * Prints, for the lockstep script, {@code jvm-options: …} — the processor's JVM sized from
     * --memory, or a small one when this JVM only launches processor JVMs — and says so on stderr.
     */
    private int printJvmOptions(boolean launches) {
        PrintWriter err = spec.commandLine().getErr();
        List<String> options = launches ? EmbspJvm.LAUNCHER_OPTIONS : jvm().options();
        err.println("lockstep embsp: " + (launches ? "processor JVMs: " : "") + jvm().describe());
        err.flush();
        spec.commandLine().getOut().println("jvm-options: " + String.join(" ", options));
        return 0;
    }

    static int impossible(PrintWriter err, LockstepException e) {
        // the message starts with the MPI error class, e.g. [MPI_ERR_NO_MEM]
        String message = e.getMessage();
        err.println("lockstep embsp: impossible configuration: "
                + (message.contains(e.errorClass().mpiName()) ? message : "[" + e.errorClass().mpiName() + "] " + message));
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            err.println("  caused by " + cause.getMessage());
        }
        err.flush();
        return IMPOSSIBLE;
    }

    /**
     * The simulator's counted I/O and its bound as multiples of the input ({@code io_per_input=…
     * bound_per_input=…}), and per operation ({@code io_per_input_by_operation=allgather:COUNTED/BOUND,…}),
     * read from the simulator's closing line.
     */
    static String ioPerInput(String simulator, long inputBytes) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String token : simulator.split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                values.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        double input = Math.max(1, inputBytes);
        long counted = Long.parseLong(values.getOrDefault("swap_bytes", "0")) + Long.parseLong(values.getOrDefault("delivery_bytes", "0"));
        long bound = Long.parseLong(values.getOrDefault("bound_bytes", "0"));
        StringBuilder byOperation = new StringBuilder();
        for (String entry : values.getOrDefault("io_by_operation", "-").split(",")) {
            int colon = entry.indexOf(':');
            int slash = entry.indexOf('/');
            if (colon > 0 && slash > colon) {
                byOperation.append(byOperation.isEmpty() ? "" : ",").append(entry, 0, colon).append(String.format(Locale.ROOT,
                        ":%.2f/%.2f", Long.parseLong(entry.substring(colon + 1, slash)) / input,
                        Long.parseLong(entry.substring(slash + 1)) / input));
            }
        }
        return String.format(Locale.ROOT, "io_per_input=%.2f bound_per_input=%.2f io_per_input_by_operation=%s", counted / input,
                bound / input, byOperation.isEmpty() ? "-" : byOperation);
    }

    /** VmHWM of /proc/self/status in bytes, or -1 where there is none. */
    static long peakResidentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            // not Linux
        }
        return -1;
    }

    /** Draws the simulator's gnuplot script for {@code benchData} and says where data, script and plot are. */
    static void drawBench(Path benchData, PrintWriter err) {
        Path script = benchData.resolveSibling(benchData.getFileName() + ".gp");
        Gnuplot.Outcome plot = new Gnuplot().draw(script, pngFor(benchData));
        err.println("lockstep embsp: bench data " + benchData + ", gnuplot script " + script + ", " + plot.message());
    }

    /** The plot of a bench data file, as its gnuplot script names it: the data file's name with {@code .png} for its extension. */
    static Path pngFor(Path benchData) {
        String name = benchData.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return benchData.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".png");
    }
}
