package org.lockstep.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import org.lockstep.api.JobOptions;

/**
 * How an external-memory provider ({@link Capability#EXTERNAL_MEMORY}) is set up by job properties,
 * so that the EMBSP rules can size a run beyond its memory budget, on P real processors, with its
 * disks in a directory of the kit's, and read what it counted.
 *
 * <p>The report: at the end of a run the provider writes one line of space-separated
 * {@code key=value} pairs to the file named by {@link #reportProperty}, with at least
 * {@code swap_bytes}, {@code delivery_bytes} (the I/O it counted), {@code bound_bytes} (the
 * I/O its analysis allows the run) and {@code within_bounds} ({@code true} when every call kept
 * within its own bound).
 *
 * @param processorsProperty real processors the ranks are spread over (threads of the kit's JVM)
 * @param coresProperty      ranks of one real processor that hold memory at once (k)
 * @param contextProperty    bytes of memory of one rank (μ)
 * @param memoryProperty     a real processor's memory budget in bytes
 * @param disksProperty      where the disks go: a directory (the provider creates its files in it)
 * @param reportProperty     the file that receives the closing report line
 */
public record ExternalMemoryRouting(String processorsProperty, String coresProperty, String contextProperty, String memoryProperty,
                                    String disksProperty, String reportProperty) {
    /** The routing of the in-repo EM-BSP simulator (provider {@code embsp}). */
    public static final ExternalMemoryRouting EMBSP = new ExternalMemoryRouting("lockstep.embsp.processors", "lockstep.embsp.cores",
            "lockstep.embsp.contextSize", "lockstep.embsp.memory", "lockstep.embsp.disks", "lockstep.embsp.statsOut");

    public ExternalMemoryRouting {
        Objects.requireNonNull(processorsProperty, "processorsProperty");
        Objects.requireNonNull(coresProperty, "coresProperty");
        Objects.requireNonNull(contextProperty, "contextProperty");
        Objects.requireNonNull(memoryProperty, "memoryProperty");
        Objects.requireNonNull(disksProperty, "disksProperty");
        Objects.requireNonNull(reportProperty, "reportProperty");
    }

    /** One run's shape: P real processors of k cores, μ bytes per rank, a budget, the disks' directory and the report file. */
    public record Shape(int processors, int cores, long context, long memory, Path disks, Path report) {
    }

    /** {@code options} set up for {@code shape}. */
    public JobOptions apply(JobOptions options, Shape shape) {
        return options.with(processorsProperty, Integer.toString(shape.processors()))
                .with(coresProperty, Integer.toString(shape.cores()))
                .with(contextProperty, Long.toString(shape.context()))
                .with(memoryProperty, Long.toString(shape.memory()))
                .with(disksProperty, shape.disks().toString())
                .with(reportProperty, shape.report().toString());
    }

    /** The report line a run wrote, as a map; empty if the file is missing or blank. */
    public static Optional<Map<String, String>> readReport(Path report) {
        try {
            if (!Files.isRegularFile(report)) {
                return Optional.empty();
            }
            String text = Files.readString(report).strip();
            if (text.isEmpty()) {
                return Optional.empty();
            }
            Map<String, String> values = new TreeMap<>();
            for (String pair : text.lines().reduce((first, last) -> last).orElse("").split("\\s+")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    values.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
            return Optional.of(values);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the provider's report " + report, e);
        }
    }
}
