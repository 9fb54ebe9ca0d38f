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
import java.util.function.Consumer;

import org.lockstep.api.Sizes;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.tck.report.ReportWriter;

/** The kit's command line, shared by {@link Tck#main} and the {@code lockstep tck} command. */
public final class TckArguments {
    /** Usage text. */
    public static final String USAGE = """
            Usage: lockstep tck --provider NAME [options]
            Runs the Lockstep conformance kit against a provider and reports per rule.
              --provider NAME         provider to check (found with ServiceLoader), e.g. mailbox
              --provider-path PATHS   extra jars or directories to find providers in (':'-separated)
              --device PATH           run the mailbox transport over this device path, and check the device
              --device-provider NAME  device provider that maps PATH (default: mapped)
              --ranks LIST            rank counts, e.g. 2,3,4,8 (default 2,3,4,8)
              --seed S                seed of generated scenarios (default: random, printed)
              --tries N               scenarios per generated rule (default 100)
              --report DIR            write tck-report.md, tck-report.html and TEST-lockstep-tck.xml into DIR
              --certify               certification mode: the fixed published seeds and effort
              --rules LIST            only these rule ids or groups, e.g. PT2PT,LARGE.01
              --option KEY=VALUE      job property for the provider's worlds (repeatable)
              --max-ranks N           declare the largest world (providers without a built-in profile)
              --threshold BYTES       declare the indirection threshold
              --indirect-bytes BYTES  declare the indirect storage per rank
              --capability NAME       declare SEND_CANCEL, PERSISTENCE, CRASH_INJECTION or DEVICE_TRANSPORT (repeatable)
              --deadline SECONDS      longest one world may run (default 30)
              --stall SECONDS         longest all ranks may sit blocked before it is a deadlock (default 5)
              --self-test             also run the rules against deliberately broken versions of the provider
              --list                  list the rules and exit
            Exit: 0 compatible, 1 a required rule failed, 2 nothing could run.""";

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

    public static Request parse(String... args) {
        String provider = null;
        TckConfiguration c = TckConfiguration.of("");
        Map<String, String> options = new TreeMap<>();
        Set<Capability> features = EnumSet.noneOf(Capability.class);
        OptionalInt maxRanks = OptionalInt.empty();
        OptionalLong threshold = OptionalLong.empty();
        OptionalLong indirect = OptionalLong.empty();
        Duration deadline = c.runDeadline();
        Duration stall = c.stallTimeout();
        boolean list = false;
        boolean help = false;
        boolean selfTest = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--help", "-h" -> help = true;
                case "--list" -> list = true;
                case "--certify" -> c = c.withCertification(true);
                case "--self-test" -> selfTest = true;
                case "--provider" -> provider = value(args, ++i, a);
                case "--provider-path" -> c = c.withProviderPath(Arrays.stream(value(args, ++i, a).split(java.io.File.pathSeparator))
                        .filter(s -> !s.isBlank()).map(Path::of).toList());
                case "--device" -> c = c.withDevice(value(args, ++i, a), c.deviceProvider());
                case "--device-provider" -> {
                    String name = value(args, ++i, a);
                    c = new TckConfiguration(c.provider(), c.providerPath(), c.devicePath(), name, c.rankCounts(), c.seed(), c.tries(),
                            c.reportDirectory(), c.certification(), c.rules(), c.options(), c.maxRanks(), c.threshold(),
                            c.indirectBytes(), c.features(), c.runDeadline(), c.stallTimeout());
                }
                case "--ranks" -> c = c.withRankCounts(intList(value(args, ++i, a), a));
                case "--seed" -> c = c.withSeed(longValue(value(args, ++i, a), a));
                case "--tries" -> c = c.withTries((int) longValue(value(args, ++i, a), a));
                case "--report" -> c = c.withReportDirectory(Path.of(value(args, ++i, a)));
                case "--rules" -> c = c.withRules(new LinkedHashSet<>(Arrays.asList(value(args, ++i, a).split(","))));
                case "--option" -> {
                    String kv = value(args, ++i, a);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new UsageException("--option needs KEY=VALUE, got '" + kv + "'");
                    }
                    options.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                case "--max-ranks" -> maxRanks = OptionalInt.of((int) longValue(value(args, ++i, a), a));
                case "--threshold" -> threshold = OptionalLong.of(Sizes.parse(a, value(args, ++i, a)));
                case "--indirect-bytes" -> indirect = OptionalLong.of(Sizes.parse(a, value(args, ++i, a)));
                case "--capability" -> {
                    String name = value(args, ++i, a).toUpperCase(Locale.ROOT).replace('-', '_');
                    try {
                        features.add(Capability.valueOf(name));
                    } catch (IllegalArgumentException e) {
                        throw new UsageException("unknown capability '" + name + "'; known: " + Arrays.toString(Capability.values()));
                    }
                }
                case "--deadline" -> deadline = Duration.ofSeconds(longValue(value(args, ++i, a), a));
                case "--stall" -> stall = Duration.ofSeconds(longValue(value(args, ++i, a), a));
                default -> throw new UsageException("unknown argument '" + a + "'");
            }
        }
        if (provider == null && !list && !help) {
            throw new UsageException("--provider NAME is required");
        }
        TckConfiguration done = new TckConfiguration(provider == null ? "" : provider, c.providerPath(), c.devicePath(),
                c.deviceProvider(), c.rankCounts(), c.seed(), c.tries(), c.reportDirectory(), c.certification(), c.rules(), options,
                maxRanks, threshold, indirect, features, deadline, stall);
        return new Request(done, list, help, selfTest);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    private static long longValue(String s, String option) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a number, got '" + s + "'");
        }
    }

    private static List<Integer> intList(String s, String option) {
        List<Integer> out = new ArrayList<>();
        for (String part : s.split(",")) {
            long n = longValue(part, option);
            if (n < 1 || n > Integer.MAX_VALUE) {
                throw new UsageException(option + ": rank counts are positive, got " + n);
            }
            out.add((int) n);
        }
        return out;
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
