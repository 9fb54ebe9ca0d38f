package org.lockstep.tck;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.conformance.RunSettings;

/**
 * A provider's own table of the rules it runs, in the habit of MPICH's {@code testlist} files: one
 * rule a line, its rank counts, and optionally a time limit and an expected failure with the reason.
 * <pre>
 * # rule     ranks     options
 * PT2PT.01   2,3,4
 * LARGE.05   2         time=60
 * PT2PT.17   2,4       xfail=send cancel is not supported
 * </pre>
 * Only the listed rules run. A rule expected to fail that fails is reported as skipped, with the
 * declaration and what failed, so the report shows it and it does not decide the verdict; one that
 * passes is reported as passed, with a note that the table expected it to fail.
 */
record Testlist(Map<String, Line> lines) {
    /** One line: the rule, its rank counts, its time limit, and the reason it is expected to fail (if it is). */
    record Line(String rule, List<Integer> ranks, Optional<Duration> timeLimit, Optional<String> expectedFailure, int lineNumber) {
    }

    Testlist {
        lines = Map.copyOf(lines);
    }

    /** Reads a table; a line that names no known rule, or is malformed, is a usage error naming its line. */
    static Testlist read(Path file) {
        List<String> text;
        try {
            text = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new TckArguments.UsageException("cannot read the testlist " + file + ": " + e.getMessage());
        }
        Map<String, Line> lines = new LinkedHashMap<>();
        for (int n = 1; n <= text.size(); n++) {
            String line = text.get(n - 1).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split("\\s+", 3);
            String where = file + ":" + n + ": ";
            if (fields.length < 2) {
                throw new TckArguments.UsageException(where + "a line is RULE RANKS [time=SECONDS] [xfail=REASON], got '" + line + "'");
            }
            String rule = fields[0];
            if (RuleCatalog.all().stream().noneMatch(r -> r.id().equals(rule))) {
                throw new TckArguments.UsageException(where + "no rule " + rule + " (lockstep tck --list)");
            }
            if (lines.containsKey(rule)) {
                throw new TckArguments.UsageException(where + rule + " is listed twice (first on line " + lines.get(rule).lineNumber() + ")");
            }
            List<Integer> ranks = new ArrayList<>();
            for (String count : fields[1].split(",")) {
                try {
                    int r = Integer.parseInt(count);
                    if (r < 1) {
                        throw new NumberFormatException();
                    }
                    ranks.add(r);
                } catch (NumberFormatException e) {
                    throw new TckArguments.UsageException(where + "rank counts are positive numbers, got '" + fields[1] + "'");
                }
            }
            Optional<Duration> time = Optional.empty();
            Optional<String> xfail = Optional.empty();
            String options = fields.length > 2 ? fields[2] : "";
            // xfail's reason runs to the end of the line; time= comes before it
            int xfailAt = options.indexOf("xfail=");
            String before = xfailAt < 0 ? options : options.substring(0, xfailAt);
            if (xfailAt >= 0) {
                String reason = options.substring(xfailAt + "xfail=".length()).strip();
                if (reason.isEmpty()) {
                    throw new TckArguments.UsageException(where + "xfail= needs the reason the rule fails");
                }
                xfail = Optional.of(reason);
            }
            for (String option : before.strip().isEmpty() ? new String[0] : before.strip().split("\\s+")) {
                if (option.startsWith("time=")) {
                    try {
                        time = Optional.of(Duration.ofSeconds(Long.parseLong(option.substring("time=".length()))));
                    } catch (NumberFormatException e) {
                        throw new TckArguments.UsageException(where + "time= takes seconds, got '" + option + "'");
                    }
                } else {
                    throw new TckArguments.UsageException(where + "unknown option '" + option + "' (time=SECONDS, xfail=REASON)");
                }
            }
            lines.put(rule, new Line(rule, List.copyOf(ranks), time, xfail, n));
        }
        return new Testlist(lines);
    }

    /** The listed rules, in catalog order. */
    List<Rule> rules() {
        return RuleCatalog.all().stream().filter(r -> lines.containsKey(r.id())).toList();
    }

    /** {@code settings} with the rule's rank counts and time limit. */
    RunSettings settingsFor(Rule rule, RunSettings settings) {
        Line line = lines.get(rule.id());
        RunSettings s = settings.withRankCounts(line.ranks());
        return line.timeLimit().map(t -> s.withTimeouts(t, s.stallTimeout())).orElse(s);
    }

    /** The outcome as the table declares it: an expected failure does not count as one. */
    RuleOutcome declared(RuleOutcome outcome) {
        Line line = lines.get(outcome.rule().id());
        if (line == null || line.expectedFailure().isEmpty()) {
            return outcome;
        }
        String reason = line.expectedFailure().get();
        if (outcome.failed()) {
            return new RuleOutcome(outcome.rule(), RuleOutcome.Verdict.SKIPPED, "expected failure (testlist: " + reason + "); it failed: "
                    + outcome.message(), outcome.details(), outcome.seed(), outcome.elapsed());
        }
        if (outcome.passed()) {
            return new RuleOutcome(outcome.rule(), RuleOutcome.Verdict.PASSED, "passed, although the testlist expects it to fail ("
                    + reason + ")", outcome.details(), outcome.seed(), outcome.elapsed());
        }
        return outcome;
    }
}
