package org.lockstep.conformance.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RunSettings;

/**
 * What the kit tells every process of a launched job ({@link LaunchedRules}): the provider, the
 * job properties, what the provider declares, and the rules to run in order, each with its
 * settings. A text file, one item a line:
 * <pre>
 * provider mpi
 * property lockstep.mpi.hostOf=2
 * threshold 4096
 * capability SEND_CANCEL
 * rule PT2PT.01 seed=7 tries=15 ranks=2,3,4 deadline=20000 stall=3000 shrink=500 repetitions=2
 * </pre>
 * The world size of the provider's declaration is the job's, known only inside it.
 *
 * @param provider     the provider's name
 * @param properties   job properties of the job's world
 * @param threshold    the declared indirection threshold, if any
 * @param features     declared optional features
 * @param rules        the rules in order, with their settings
 */
public record LaunchPlan(String provider, Map<String, String> properties, OptionalLong threshold, Set<Capability> features,
                         List<Step> rules) {
    /** One rule and its settings. */
    public record Step(Rule rule, RunSettings settings) {
    }

    public LaunchPlan {
        properties = Map.copyOf(properties);
        features = Set.copyOf(features);
        rules = List.copyOf(rules);
    }

    /** The declarations of the provider in a job of {@code worldSize} processes. */
    public Capabilities capabilities(int worldSize) {
        Capabilities c = Capabilities.of(worldSize);
        if (threshold.isPresent()) {
            c = c.withIndirectionThreshold(threshold.getAsLong());
        }
        for (Capability f : features) {
            c = c.with(f);
        }
        return c;
    }

    /** The same plan with only {@code steps}. */
    public LaunchPlan withRules(List<Step> steps) {
        return new LaunchPlan(provider, properties, threshold, features, steps);
    }

    public void write(Path file) {
        List<String> lines = new ArrayList<>();
        lines.add("provider " + provider);
        properties.forEach((k, v) -> lines.add("property " + k + "=" + v));
        threshold.ifPresent(t -> lines.add("threshold " + t));
        features.forEach(f -> lines.add("capability " + f.name()));
        for (Step s : rules) {
            RunSettings r = s.settings();
            lines.add("rule " + s.rule().id() + " seed=" + r.seed() + " tries=" + r.tries() + " ranks="
                    + String.join(",", r.rankCounts().stream().map(String::valueOf).toList()) + " deadline=" + r.runDeadline().toMillis()
                    + " stall=" + r.stallTimeout().toMillis() + " shrink=" + r.shrinkCycles() + " repetitions=" + r.repetitions());
        }
        try {
            Files.write(file, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the launch plan " + file, e);
        }
    }

    public static LaunchPlan read(Path file) {
        String provider = null;
        Map<String, String> properties = new LinkedHashMap<>();
        OptionalLong threshold = OptionalLong.empty();
        Set<Capability> features = EnumSet.noneOf(Capability.class);
        List<Step> rules = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the launch plan " + file, e);
        }
        for (String line : lines) {
            String[] f = line.split(" ", 2);
            switch (f[0]) {
                case "provider" -> provider = f[1];
                case "property" -> properties.put(f[1].substring(0, f[1].indexOf('=')), f[1].substring(f[1].indexOf('=') + 1));
                case "threshold" -> threshold = OptionalLong.of(Long.parseLong(f[1]));
                case "capability" -> features.add(Capability.valueOf(f[1]));
                case "rule" -> rules.add(step(f[1]));
                default -> throw new IllegalArgumentException(file + ": unknown line '" + line + "'");
            }
        }
        if (provider == null) {
            throw new IllegalArgumentException(file + " names no provider");
        }
        return new LaunchPlan(provider, properties, threshold, features, rules);
    }

    private static Step step(String text) {
        String[] f = text.split(" ");
        Rule rule = OutcomeLog.rule(f[0]);
        Map<String, String> v = new LinkedHashMap<>();
        for (String kv : Arrays.copyOfRange(f, 1, f.length)) {
            v.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
        RunSettings s = new RunSettings(Long.parseLong(v.get("seed")), Integer.parseInt(v.get("tries")),
                Arrays.stream(v.get("ranks").split(",")).map(Integer::valueOf).toList(), Duration.ofMillis(Long.parseLong(v.get("deadline"))),
                Duration.ofMillis(Long.parseLong(v.get("stall"))), Integer.parseInt(v.get("shrink")), Integer.parseInt(v.get("repetitions")));
        return new Step(rule, s);
    }
}
