package org.lockstep.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code lockstep run --jfr FILE}: every rank's JVM records a Flight Recorder file of its own
 * ({@code FILE}'s name with {@code -rank<r>} before {@code .jfr}), with Lockstep's events on
 * (also the per-message ones: {@code org.lockstep.Match}, the mailbox's
 * {@code org.lockstep.SlotPublished}, and every {@code org.lockstep.Send},
 * {@code org.lockstep.Receive} and EM-BSP {@code org.lockstep.Delivery}, not only those over their
 * default threshold). The files stay apart, one per rank as MPI tracers keep them: chunks of
 * different JVMs must not be concatenated, because JFR's parser keeps the previous chunk's type table when the next chunk's metadata id is the same, and event type ids
 * differ between JVMs (a joined file showed rank 1's collectives as other events).
 */
final class FlightRecording {
    /** Stands for the rank (and, after a restart, its incarnation) in a rank's command line. */
    static final String RANK = "{rank}";

    private FlightRecording() {
    }

    /** The JVM options that make each rank record into its own file beside {@code file}. */
    static List<String> jvmOptions(Path file) {
        Path absolute = file.toAbsolutePath();
        return List.of("-XX:StartFlightRecording:filename=" + rankFile(absolute, RANK) + ",dumponexit=true"
                        + ",+org.lockstep.Match#enabled=true,+org.lockstep.Send#threshold=0 ms,+org.lockstep.Receive#threshold=0 ms"
                        + ",+org.lockstep.Delivery#threshold=0 ms,+org.lockstep.SlotPublished#enabled=true",
                // JFR announces each recording on standard output; the launcher says where they are
                "-Xlog:jfr+startup=off");
    }

    /** Where rank {@code rank} records. */
    static Path rankFile(Path file, String rank) {
        String name = file.getFileName().toString();
        String stem = name.endsWith(".jfr") ? name.substring(0, name.length() - ".jfr".length()) : name;
        return file.resolveSibling(stem + "-rank" + rank + ".jfr");
    }

    /** A rank's tag in file names: its rank, and the incarnation when it was restarted. */
    static String rankTag(int rank, int incarnation) {
        return incarnation <= 1 ? Integer.toString(rank) : rank + "-incarnation" + incarnation;
    }

    /** Removes the rank files an earlier recording into {@code file} left, so that none is mistaken for this job's. */
    static void clear(Path file) throws IOException {
        for (Path part : rankFiles(file)) {
            Files.delete(part);
        }
    }

    /** The rank files that exist for {@code file}, in rank order (a restarted rank's incarnations after it). */
    static List<Path> rankFiles(Path file) throws IOException {
        Path absolute = file.toAbsolutePath();
        String prefix = rankFile(absolute, "").getFileName().toString().replace(".jfr", "");
        List<Path> parts = new ArrayList<>();
        try (var siblings = Files.list(absolute.getParent())) {
            siblings.filter(p -> p.getFileName().toString().startsWith(prefix) && p.getFileName().toString().endsWith(".jfr"))
                    .sorted(Comparator.comparing(FlightRecording::rankOf).thenComparing(p -> p.getFileName().toString().length())
                            .thenComparing(Path::toString))
                    .forEach(parts::add);
        }
        return parts;
    }

    private static int rankOf(Path rankFile) {
        String name = rankFile.getFileName().toString();
        String tail = name.substring(name.lastIndexOf("-rank") + "-rank".length());
        int end = 0;
        while (end < tail.length() && Character.isDigit(tail.charAt(end))) {
            end++;
        }
        return end == 0 ? Integer.MAX_VALUE : Integer.parseInt(tail.substring(0, end));
    }

    /** How many of Lockstep's events (named {@code org.lockstep.*}) one rank's recording holds, by event name. */
    static Map<String, Long> lockstepEventCounts(Path file) throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                String name = event.getEventType().getName();
                if (name.startsWith("org.lockstep.")) {
                    counts.merge(name, 1L, Long::sum);
                }
            }
        }
        return counts;
    }
}
