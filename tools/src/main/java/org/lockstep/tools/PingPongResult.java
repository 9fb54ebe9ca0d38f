package org.lockstep.tools;

import java.util.List;
import java.util.Locale;

/**
 * One row of the ping-pong table: one-way latency (round trip / 2) of {@code iterations} round
 * trips of {@code size} bytes, and the bandwidth that the median latency implies.
 */
record PingPongResult(long size, long iterations, double medianMicros, double p99Micros) {
    private static final double BYTES_PER_MEGABYTE = 1e6;
    private static final double MICROS_PER_SECOND = 1e6;

    /** Megabytes (10^6 bytes) per second: size / median one-way latency. */
    double megabytesPerSecond() {
        return medianMicros <= 0 ? Double.POSITIVE_INFINITY : size / BYTES_PER_MEGABYTE / (medianMicros / MICROS_PER_SECOND);
    }

    static String markdownTable(List<PingPongResult> results) {
        StringBuilder table = new StringBuilder()
                .append("| size (B) | round trips | median one-way (µs) | p99 one-way (µs) | bandwidth (MB/s) |\n")
                .append("|---------:|------------:|--------------------:|-----------------:|-----------------:|\n");
        for (PingPongResult r : results) {
            table.append(String.format(Locale.ROOT, "| %d | %d | %.2f | %.2f | %.1f |%n",
                    r.size, r.iterations, r.medianMicros, r.p99Micros, r.megabytesPerSecond()));
        }
        return table.toString();
    }

    /** The key=value line of {@code bench/peers/mpi/pingpong.c}: {@code PP size=8 iters=20000 med_us=0.383 p99_us=0.682 mbps=20.9}. */
    String keyValueLine() {
        return String.format(Locale.ROOT, "PP size=%d iters=%d med_us=%.3f p99_us=%.3f mbps=%.1f",
                size, iterations, medianMicros, p99Micros, megabytesPerSecond());
    }

    static String csv(List<PingPongResult> results) {
        StringBuilder csv = new StringBuilder("size_bytes,round_trips,median_one_way_us,p99_one_way_us,bandwidth_mb_per_s\n");
        for (PingPongResult r : results) {
            csv.append(String.format(Locale.ROOT, "%d,%d,%.3f,%.3f,%.3f%n",
                    r.size, r.iterations, r.medianMicros, r.p99Micros, r.megabytesPerSecond()));
        }
        return csv.toString();
    }
}
