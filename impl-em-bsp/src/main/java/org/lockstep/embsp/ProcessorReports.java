package org.lockstep.embsp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lockstep.embsp.io.IoSnapshot;
import org.lockstep.embsp.sim.CallRecord;

/**
 * The reports of the real processors of one simulation: each processor's {@link RunReport} as
 * text (sent to the others with its last frame), and their sum — every call's I/O and network
 * bytes added up over the processors and held against the call's bounds added up the same way
 * (the thesis's bound is the whole call's, so it is taken once); a call is within its bound only if
 * every processor's share was within its own.
 */
final class ProcessorReports {
    private ProcessorReports() {
    }

    static byte[] encode(RunReport r) {
        StringBuilder b = new StringBuilder();
        b.append("run ").append(r.supersteps()).append(' ').append(r.seconds()).append(' ').append(r.boundBytes()).append(' ')
                .append(r.peakCacheBytes()).append(' ').append(r.partitionBytes()).append(' ').append(r.kernelReadBytes()).append(' ')
                .append(r.kernelWriteBytes()).append(' ').append(r.networkBytes()).append(' ').append(r.peakRss()).append('\n');
        b.append("total ").append(snapshot(r.total())).append('\n');
        b.append("p2p ").append(snapshot(r.pointToPoint())).append('\n');
        for (int s = 0; s < r.perSuperstep().size(); s++) {
            b.append("superstep ").append(s < r.superstepSeconds().length ? r.superstepSeconds()[s] : 0.0).append(' ')
                    .append(snapshot(r.perSuperstep().get(s))).append('\n');
        }
        for (CallRecord c : r.calls()) {
            b.append(String.format(Locale.ROOT, "call %s %d %d %d %d %d %d %d %d %d %s %d %d %s%n", c.operation(), c.group(),
                    c.sequence(), c.participants(), c.omega(), c.swapBoundBytes(), c.deliveryBoundBytes(), c.thesisBoundBytes(),
                    c.cacheMisses(), c.blockSize(), Double.toString(c.seconds()), c.networkBytes(), c.networkBoundBytes(),
                    snapshot(c.counted())));
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String snapshot(IoSnapshot s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.bytes().length; i++) {
            b.append(i == 0 ? "" : " ").append(s.bytes()[i]).append(' ').append(s.operations()[i]);
        }
        return b.toString();
    }

    private static IoSnapshot snapshot(String[] f, int from) {
        int n = (f.length - from) / 2;
        long[] bytes = new long[n];
        long[] ops = new long[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = Long.parseLong(f[from + 2 * i]);
            ops[i] = Long.parseLong(f[from + 2 * i + 1]);
        }
        return new IoSnapshot(bytes, ops);
    }

    private static IoSnapshot add(IoSnapshot a, IoSnapshot b) {
        if (a == null) {
            return b;
        }
        long[] bytes = a.bytes().clone();
        long[] ops = a.operations().clone();
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] += b.bytes()[i];
            ops[i] += b.operations()[i];
        }
        return new IoSnapshot(bytes, ops);
    }

    /** The sum of the processors' reports, in processor order ({@code mine} is this processor's, with its options). */
    static RunReport merge(RunReport mine, List<byte[]> reports) {
        int supersteps = 0;
        double seconds = 0;
        long bound = 0;
        long cache = 0;
        long partitions = 0;
        long kernelRead = 0;
        long kernelWrite = 0;
        long network = 0;
        List<Long> rss = new ArrayList<>();
        IoSnapshot total = null;
        IoSnapshot p2p = null;
        List<IoSnapshot> perSuperstep = new ArrayList<>();
        List<Double> superstepSeconds = new ArrayList<>();
        Map<String, CallRecord> calls = new LinkedHashMap<>();
        for (byte[] text : reports) {
            int s = 0;
            for (String line : new String(text, StandardCharsets.UTF_8).split("\n")) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "run" -> {
                        supersteps = Math.max(supersteps, Integer.parseInt(f[1]));
                        seconds = Math.max(seconds, Double.parseDouble(f[2]));
                        bound += Long.parseLong(f[3]);
                        cache += Long.parseLong(f[4]);
                        partitions += Long.parseLong(f[5]);
                        kernelRead = sumKnown(kernelRead, Long.parseLong(f[6]));
                        kernelWrite = sumKnown(kernelWrite, Long.parseLong(f[7]));
                        network += Long.parseLong(f[8]);
                        for (String r : f[9].split(",")) {
                            rss.add(Long.parseLong(r));
                        }
                    }
                    case "total" -> total = add(total, snapshot(f, 1));
                    case "p2p" -> p2p = add(p2p, snapshot(f, 1));
                    case "superstep" -> {
                        IoSnapshot io = snapshot(f, 2);
                        double secs = Double.parseDouble(f[1]);
                        if (s < perSuperstep.size()) {
                            perSuperstep.set(s, add(perSuperstep.get(s), io));
                            superstepSeconds.set(s, Math.max(superstepSeconds.get(s), secs));
                        } else {
                            perSuperstep.add(io);
                            superstepSeconds.add(secs);
                        }
                        s++;
                    }
                    case "call" -> {
                        CallRecord c = new CallRecord(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Integer.parseInt(f[4]),
                                Long.parseLong(f[5]), snapshot(f, 14), Long.parseLong(f[6]), Long.parseLong(f[7]),
                                Long.parseLong(f[8]), Long.parseLong(f[9]), Long.parseLong(f[10]), Double.parseDouble(f[11]),
                                Long.parseLong(f[12]), Long.parseLong(f[13]), true);
                        if (!c.withinBound()) {
                            // this processor's share is over its own bound, whatever the others' shares are
                            c = new CallRecord(c.operation(), c.group(), c.sequence(), c.participants(), c.omega(), c.counted(),
                                    c.swapBoundBytes(), c.deliveryBoundBytes(), c.thesisBoundBytes(), c.cacheMisses(), c.blockSize(),
                                    c.seconds(), c.networkBytes(), c.networkBoundBytes(), false);
                        }
                        calls.merge(c.group() + "/" + c.sequence(), c, ProcessorReports::add);
                    }
                    default -> {
                    }
                }
            }
        }
        double[] secondsBySuperstep = superstepSeconds.stream().mapToDouble(Double::doubleValue).toArray();
        return new RunReport(mine.options(), mine.ioDriver(), mine.threadDriver(), mine.direct(), mine.striped(), supersteps, seconds,
                total, p2p, perSuperstep, secondsBySuperstep, List.copyOf(calls.values()), bound, cache, partitions, kernelRead,
                kernelWrite, network, rss.stream().mapToLong(Long::longValue).toArray());
    }

    private static long sumKnown(long a, long b) {
        return a < 0 || b < 0 ? -1 : a + b;
    }

    /** One call on several processors: I/O, network bytes and bounds added up; the thesis's (whole-call) bound once. */
    private static CallRecord add(CallRecord a, CallRecord b) {
        return new CallRecord(a.operation(), a.group(), a.sequence(), a.participants(), Math.max(a.omega(), b.omega()),
                add(a.counted(), b.counted()), a.swapBoundBytes() + b.swapBoundBytes(), a.deliveryBoundBytes() + b.deliveryBoundBytes(),
                Math.max(a.thesisBoundBytes(), b.thesisBoundBytes()), a.cacheMisses() + b.cacheMisses(), a.blockSize(),
                Math.max(a.seconds(), b.seconds()), a.networkBytes() + b.networkBytes(), a.networkBoundBytes() + b.networkBoundBytes(),
                a.everyProcessorWithin() && b.everyProcessorWithin());
    }
}
