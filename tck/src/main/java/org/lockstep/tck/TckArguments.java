package org.lockstep.tck;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.Optional;
import java.util.function.Consumer;

import org.lockstep.api.Sizes;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.tck.report.ReportWriter;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * The kit's command line, shared by {@link Tck#main} and the {@code lockstep tck} command, parsed
 * by picocli from the options of {@link Options}.
 */
public final class TckArguments {
    /** Usage text: picocli's, from the options' descriptions. */
    public static final String USAGE = new CommandLine(new Options()).getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing();

    /** Rank counts under a launcher unless --ranks says otherwise: every world is part of one job of this many processes. */
    static final List<Integer> LAUNCHED_RANK_COUNTS = List.of(2, 3, 4);

    private TckArguments() {
    }

    /** A command line that could not be understood. */
    public static final class UsageException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }

    /** What the command line asks for. */
    public record Request(TckConfiguration configuration, boolean list, boolean help, boolean selfTest) {
    }

    /** The options; picocli sets the fields. */
    @Command(name = "lockstep tck", sortOptions = false,
            description = "Runs the Lockstep conformance kit against a provider and reports per rule.",
            footer = "Exit: 0 compatible, 1 a required rule failed, 2 nothing could run.")
    static final class Options {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
        boolean help;
        @Option(names = "--provider", paramLabel = "NAME", description = "provider to check (found with ServiceLoader), e.g. mailbox")
        String provider;
        @Option(names = "--provider-path", paramLabel = "PATHS", split = "${sys:path.separator}",
                description = "extra jars or directories to find providers in (':'-separated)")
        List<Path> providerPath = new ArrayList<>();
        @Option(names = "--device", paramLabel = "PATH", description = "run the mailbox transport over this device path, and check the device")
        String device;
        @Option(names = "--device-provider", paramLabel = "NAME", description = "device provider that maps PATH (default: mapped)")
        String deviceProvider;
        @Option(names = "--ranks", paramLabel = "LIST", split = ",", converter = RankCount.class,
                description = "rank counts, e.g. 2,3,4,8 (default 2,3,4,8)")
        List<Integer> ranks;
        @Option(names = "--seed", paramLabel = "S", description = "seed of generated scenarios (default: random, printed)")
        Long seed;
        @Option(names = "--tries", paramLabel = "N", description = "scenarios per generated rule (default 100)")
        Integer tries;
        @Option(names = "--report", paramLabel = "DIR", description = "write tck-report.md, tck-report.html and TEST-lockstep-tck.xml into DIR")
        Path report;
        @Option(names = "--certify", description = "certification mode: the fixed published seeds and effort")
        boolean certify;
        @Option(names = "--rules", paramLabel = "LIST", split = ",", description = "only these rule ids or groups, e.g. PT2PT,LARGE.01")
        LinkedHashSet<String> rules;
        @Option(names = "--option", paramLabel = "KEY=VALUE", description = "job property for the provider's worlds (repeatable)")
        Map<String, String> options = new TreeMap<>();
        @Option(names = "--max-ranks", paramLabel = "N", description = "declare the largest world (providers without a built-in profile)")
        Integer maxRanks;
        @Option(names = "--threshold", paramLabel = "BYTES", converter = Size.class, description = "declare the indirection threshold")
        Long threshold;
        @Option(names = "--indirect-bytes", paramLabel = "BYTES", converter = Size.class, description = "declare the indirect storage per rank")
        Long indirectBytes;
        @Option(names = "--capability", paramLabel = "NAME", converter = CapabilityName.class,
                description = "declare SEND_CANCEL, PERSISTENCE, CRASH_INJECTION or DEVICE_TRANSPORT (repeatable)")
        Set<Capability> capabilities = EnumSet.noneOf(Capability.class);
        @Option(names = "--deadline", paramLabel = "SECONDS", description = "longest one world may run (default 30)")
        Long deadlineSeconds;
        @Option(names = "--stall", paramLabel = "SECONDS", description = "longest all ranks may sit blocked before it is a deadlock (default 5)")
        Long stallSeconds;
        @Option(names = "--self-test", description = "also run the rules against deliberately broken versions of the provider")
        boolean selfTest;
        @Option(names = "--list", description = "list the rules and exit")
        boolean list;
        @Option(names = "--launcher", paramLabel = "COMMAND",
                description = "run the rules in a job of rank processes started by this MPI launcher (mpirun.openmpi, mpirun.mpich,"
                        + " mpirun, mpiexec), one rank per process, for providers such as mpi and hybrid (default ranks then 2,3,4)")
        String launcher;
        @Option(names = "--launcher-arg", paramLabel = "ARG", description = "an extra launcher flag, e.g. --launcher-arg=--mca (repeatable)")
        List<String> launcherArgs = new ArrayList<>();
        @Option(names = "--testlist", paramLabel = "FILE",
                description = "the provider's table: RULE RANKS [time=SECONDS] [xfail=REASON] a line; only those rules run")
        Path testlist;
    }

    /** A rank count: a positive number. */
    static final class RankCount implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long n;
            try {
                n = Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("rank counts are numbers, got '" + value + "'");
            }
            if (n < 1 || n > Integer.MAX_VALUE) {
                throw new TypeConversionException("rank counts are positive, got " + n);
            }
            return (int) n;
        }
    }

    /** A byte count with an optional binary suffix ({@code 4k}). */
    static final class Size implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return Sizes.parse("size", value);
            } catch (RuntimeException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A capability by name, in any case, with '-' for '_'. */
    static final class CapabilityName implements ITypeConverter<Capability> {
        @Override
        public Capability convert(String value) {
            String name = value.toUpperCase(Locale.ROOT).replace('-', '_');
            try {
                return Capability.valueOf(name);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("unknown capability '" + name + "'; known: " + Arrays.toString(Capability.values()));
            }
        }
    }

    public static Request parse(String... args) {
        Options o = new Options();
        try {
            new CommandLine(o).parseArgs(args);
        } catch (ParameterException e) {
            throw new UsageException(e.getMessage());
        }
        if (o.provider == null && !o.list && !o.help) {
            throw new UsageException("--provider NAME is required");
        }
        if (o.launcher == null && !o.launcherArgs.isEmpty()) {
            throw new UsageException("--launcher-arg needs --launcher");
        }
        if (o.maxRanks != null && o.maxRanks < 1) {
            throw new UsageException("--max-ranks must be at least 1, got " + o.maxRanks);
        }
        for (Path entry : o.providerPath) {
            // A misspelt jar would otherwise just find no provider.
            if (!java.nio.file.Files.exists(entry)) {
                throw new UsageException("--provider-path: no such jar or directory: " + entry);
            }
        }
        TckConfiguration d = TckConfiguration.of("");
        Optional<String> device = o.device == null ? d.devicePath() : Optional.of(o.device);
        TckConfiguration c;
        try {
            c = new TckConfiguration(o.provider == null ? "" : o.provider, List.copyOf(o.providerPath), device,
                    o.deviceProvider == null ? d.deviceProvider() : o.deviceProvider,
                    o.ranks != null ? List.copyOf(o.ranks) : o.launcher != null ? LAUNCHED_RANK_COUNTS : d.rankCounts(),
                    o.seed == null ? d.seed() : OptionalLong.of(o.seed), o.tries == null ? d.tries() : o.tries,
                    Optional.ofNullable(o.report), o.certify, o.rules == null ? d.rules() : o.rules, o.options,
                    o.maxRanks == null ? OptionalInt.empty() : OptionalInt.of(o.maxRanks),
                    o.threshold == null ? OptionalLong.empty() : OptionalLong.of(o.threshold),
                    o.indirectBytes == null ? OptionalLong.empty() : OptionalLong.of(o.indirectBytes), o.capabilities,
                    o.deadlineSeconds == null ? d.runDeadline() : Duration.ofSeconds(o.deadlineSeconds),
                    o.stallSeconds == null ? d.stallTimeout() : Duration.ofSeconds(o.stallSeconds), Optional.empty(),
                    o.launcher == null ? Optional.empty() : Optional.of(new KitLauncher(o.launcher, o.launcherArgs)));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (o.testlist != null) {
            c = c.withTestlist(Testlist.read(o.testlist));
        }
        return new Request(c, o.list, o.help, o.selfTest);
    }

    /** Runs the command line; returns the exit code. */
    public static int runFromCommandLine(String[] args, Consumer<String> out, Consumer<String> err) {
        Request request;
        try {
            request = parse(args);
        } catch (IllegalArgumentException e) {
            err.accept("lockstep tck: " + e.getMessage());
            err.accept(USAGE);
            return Verdict.NOTHING_RAN.exitCode();
        }
        if (request.help()) {
            out.accept(USAGE);
            return 0;
        }
        if (request.list()) {
            for (Rule r : RuleCatalog.all()) {
                out.accept(String.format("%-9s %-10s %-40s %s", r.id(), r.level().prefix(), r.name(), r.summary()));
            }
            return 0;
        }
        TckConfiguration c = request.configuration();
        TckReport report = Tck.run(c, out);
        out.accept(report.summary());
        int exit = report.verdict().exitCode();
        if (request.selfTest() && report.verdict() != Verdict.NOTHING_RAN) {
            SelfTestReport self = SelfTest.run(c, out);
            out.accept(self.summary());
            c.reportDirectory().ifPresent(dir -> SelfTest.write(self, dir));
            if (!self.ok() && exit == 0) {
                exit = Verdict.INCOMPATIBLE.exitCode();
            }
        }
        if (c.reportDirectory().isPresent()) {
            for (Path p : ReportWriter.writeAll(report, c.reportDirectory().get())) {
                out.accept("wrote " + p);
            }
        }
        for (String note : report.notes()) {
            out.accept("note: " + note);
        }
        return exit;
    }
}
