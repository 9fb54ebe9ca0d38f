package org.lockstep.embsp;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoSnapshot;
import org.lockstep.embsp.sim.CallRecord;

/**
 * What one simulation did: its configuration, time, the I/O it counted (in total, for
 * point-to-point traffic, per virtual superstep and per collective call with the call's bound),
 * and the kernel's own count of the process's disk I/O where Linux gives it (the only measure of
 * what memory-mapped I/O paged).
 *
 * @param supersteps        virtual supersteps: collective calls entered by the VP that entered most, plus one
 * @param boundBytes        sum of the calls' bounds (point-to-point traffic has none of its own)
 * @param peakCacheBytes    the most boundary-block cache in use at once
 * @param kernelReadBytes   {@code read_bytes} of /proc/self/io over the run, or -1
 * @param kernelWriteBytes  {@code write_bytes} of /proc/self/io over the run, or -1
 */
public record RunReport(EmBspOptions options, String ioDriver, String threadDriver, boolean direct, boolean striped,
                        int supersteps, double seconds, IoSnapshot total, IoSnapshot pointToPoint,
                        List<IoSnapshot> perSuperstep, double[] superstepSeconds, List<CallRecord> calls, long boundBytes,
                        long peakCacheBytes, long partitionBytes, long kernelReadBytes, long kernelWriteBytes,
                        long networkBytes, long[] peakRssBytes) {

    /** Network frame bytes the calls may send, summed over them. */
    public long networkBoundBytes() {
        long total = 0;
        for (CallRecord c : calls) {
            total += c.networkBoundBytes();
        }
        return total;
    }

    /** The peak resident memory of each real processor's process, comma-separated. */
    public String peakRss() {
        StringBuilder b = new StringBuilder();
        for (long r : peakRssBytes) {
            b.append(b.isEmpty() ? "" : ",").append(r);
        }
        return b.toString();
    }

    /** The closing line for scripts: {@code vps=… cores=… supersteps=… seconds=… swap_bytes=… delivery_bytes=… bound_bytes=…} and more. */
    public String keyValueLine() {
        return String.format(Locale.ROOT, "vps=%d cores=%d supersteps=%d seconds=%.3f swap_bytes=%d delivery_bytes=%d bound_bytes=%d"
                        + " p2p_bytes=%d io_ops=%d io=%s threads=%s direct=%s striped=%s disks=%d block_size=%d context_size=%d"
                        + " alpha=%d memory_bytes=%d peak_cache_bytes=%d kernel_read_bytes=%d kernel_write_bytes=%d processors=%d"
                        + " delivery=%s network_bytes=%d network_bound_bytes=%d processor_peak_rss_bytes=%s within_bounds=%s"
                        + " io_by_operation=%s",
                options.vps(), options.cores(), supersteps, seconds, total.swapBytes(), total.deliveryBytes(), boundBytes,
                pointToPoint.totalBytes(), total.totalOperations(), ioDriver, threadDriver, direct, striped, options.diskCount(),
                options.blockSize(), options.contextSize(), options.alpha(), partitionBytes, peakCacheBytes, kernelReadBytes,
                kernelWriteBytes, options.processors(), options.delivery().name().toLowerCase(Locale.ROOT), networkBytes,
                networkBoundBytes(), peakRss(), withinBounds(), ioByOperation());
    }

    /**
     * Counted I/O next to its bound, summed per operation in the order the operations first ran:
     * {@code allgather:COUNTED/BOUND,alltoall:…} in bytes ({@code -} without collective calls).
     */
    public String ioByOperation() {
        Map<String, long[]> byOperation = new LinkedHashMap<>();
        for (CallRecord c : calls) {
            long[] sums = byOperation.computeIfAbsent(c.operation(), o -> new long[2]);
            sums[0] += c.counted().totalBytes();
            sums[1] += c.boundBytes();
        }
        StringBuilder b = new StringBuilder();
        byOperation.forEach((operation, sums) -> b.append(b.isEmpty() ? "" : ",").append(operation).append(':').append(sums[0])
                .append('/').append(sums[1]));
        return b.isEmpty() ? "-" : b.toString();
    }

    /** Whether every collective call kept within its bound. */
    public boolean withinBounds() {
        return calls.stream().allMatch(CallRecord::withinBound);
    }

    /**
     * Writes one row per collective call: what it counted next to its bounds (the actual-size
     * bound and the thesis's form), in the same whitespace-separated format.
     */
    public void writeCalls(Path file) throws IOException {
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            out.println("# lockstep embsp " + keyValueLine());
            out.println("# sequence operation participants omega_bytes swap_bytes delivery_bytes swap_bound_bytes"
                    + " delivery_bound_bytes thesis_bound_bytes cache_misses within_bound seconds network_bytes network_bound_bytes");
            for (CallRecord c : calls) {
                out.printf(Locale.ROOT, "%d %s %d %d %d %d %d %d %d %d %s %.6f %d %d%n", c.sequence(), c.operation(), c.participants(),
                        c.omega(), c.counted().swapBytes(), c.counted().deliveryBytes(), c.swapBoundBytes(),
                        c.deliveryBoundBytes() + c.missAllowance(), c.thesisBoundBytes() + c.missAllowance(), c.cacheMisses(),
                        c.withinBound(), c.seconds(), c.networkBytes(), c.networkBoundBytes());
            }
        }
    }

    /**
     * Writes the per-superstep data as a gnuplot data file (whitespace-separated columns, {@code #}
     * comments), next to it a gnuplot script that plots it to a PNG of the same name, and the
     * per-call table of {@link #writeCalls} as {@code FILE.calls}.
     */
    public void writeBench(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            out.println("# lockstep embsp " + keyValueLine());
            out.println("# superstep seconds swap_in_bytes swap_out_bytes delivery_read_bytes delivery_write_bytes io_ops");
            for (int s = 0; s < perSuperstep.size(); s++) {
                IoSnapshot io = perSuperstep.get(s);
                out.printf(Locale.ROOT, "%d %.6f %d %d %d %d %d%n", s, s < superstepSeconds.length ? superstepSeconds[s] : 0.0,
                        io.bytes(IoCategory.SWAP_IN), io.bytes(IoCategory.SWAP_OUT), io.bytes(IoCategory.DELIVERY_READ),
                        io.bytes(IoCategory.DELIVERY_WRITE), io.totalOperations());
            }
            out.printf(Locale.ROOT, "# total %.6f %d %d %d %d %d%n", seconds, total.bytes(IoCategory.SWAP_IN),
                    total.bytes(IoCategory.SWAP_OUT), total.bytes(IoCategory.DELIVERY_READ), total.bytes(IoCategory.DELIVERY_WRITE),
                    total.totalOperations());
        }
        writeCalls(file.resolveSibling(file.getFileName() + ".calls"));
        String name = file.getFileName().toString();
        String png = (name.contains(".") ? name.substring(0, name.lastIndexOf('.')) : name) + ".png";
        Path script = file.resolveSibling(name + ".gp");
        Files.writeString(script, String.join("\n",
                "# gnuplot " + script.getFileName() + "  ->  " + png,
                "set terminal png size 1000,600",
                "set output '" + png + "'",
                "set title 'EM-BSP simulation: v=" + options.vps() + " k=" + options.cores() + " mu=" + options.contextSize()
                        + " B=" + options.blockSize() + " D=" + options.diskCount() + " io=" + ioDriver + "'",
                "set xlabel 'virtual superstep'",
                "set ylabel 'MiB'",
                "set y2label 'seconds'",
                "set y2tics",
                "set key top left",
                "plot '" + name + "' using 1:(($3+$4)/1048576) with linespoints title 'swap', \\",
                "     '' using 1:(($5+$6)/1048576) with linespoints title 'delivery', \\",
                "     '' using 1:2 axes x1y2 with lines title 'time'",
                ""), StandardCharsets.UTF_8);
    }
}
