package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Capability.EXTERNAL_MEMORY;
import static org.lockstep.conformance.Group.EMBSP;
import static org.lockstep.conformance.Origin.seed;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.internal.Definitions.optional;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.ExternalMemoryRouting;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleSkipped;
import org.lockstep.conformance.RuleViolation;
import org.lockstep.conformance.run.RunLimits;

/**
 * The rules any external-memory provider must pass ({@link org.lockstep.conformance.Capability#EXTERNAL_MEMORY},
 * seed 003): every collective gives what a threaded provider gives, on one real processor and on two
 * with many ranks each; the I/O it counts stays within the bound of its own analysis; and memory
 * larger than the budget really leaves RAM — each rank's bytes are found on the provider's disks
 * while other ranks run. Each runs on P = 1 and P = 2 real processors.
 */
final class ExternalMemoryRules {
    /** The threaded provider every collective's result is compared with. */
    static final String REFERENCE = "mailbox";
    /** Ranks per real processor in the runs that exceed the budget (v ≫ P). */
    private static final int RANKS_PER_PROCESSOR = 8;
    /** μ of those runs; the budget is {@link #BUDGET_CONTEXTS} of them, less than a processor's ranks hold. */
    private static final long CONTEXT = 2L << 20;
    private static final int BUDGET_CONTEXTS = 5;
    /** Bytes each rank fills and keeps across supersteps in those runs: the ranks of a processor hold more than the budget. */
    private static final long KEPT = CONTEXT * 3 / 4;
    private static final int MARKER = 64;
    /** The budget of EMBSP.01's runs, where only results count. */
    private static final long ROOMY_BUDGET = 64L << 20;
    private static final Duration MIN_DEADLINE = Duration.ofMinutes(2);
    private static final Duration MIN_STALL = Duration.ofSeconds(20);

    private ExternalMemoryRules() {
    }

    static List<Rule> rules() {
        return List.of(
                optional(EMBSP, 1, EXTERNAL_MEMORY, "collectivesMatchTheThreadedProvider",
                        "Every collective (barrier, bcast from every root, gather(v), scatter(v), allgather(v), alltoall(v), reduce with a"
                                + " commutative and a non-commutative operation, allreduce, reduce_scatter(_block), scan, exscan, split) gives"
                                + " every rank the bytes the threaded provider gives it, on one real processor and on two with many ranks each.",
                        List.of(seed("PEMS2 collectives on P real processors"), standard("§6 collective communication")),
                        ExternalMemoryRules::collectivesMatchTheThreadedProvider),
                optional(EMBSP, 2, EXTERNAL_MEMORY, "countedIoWithinItsBound",
                        "A run whose ranks hold more than the memory budget reports the I/O it counted, no more than the bound of its own"
                                + " analysis for every call (within_bounds=true, swap and delivery bytes at most bound_bytes), on P = 1 and P = 2.",
                        List.of(seed("the thesis's I/O bounds per collective, P >= 1")), ExternalMemoryRules::countedIoWithinItsBound),
                optional(EMBSP, 3, EXTERNAL_MEMORY, "contextsLeaveMemory",
                        "With more bytes kept by the ranks of a real processor than its memory budget, every rank's bytes are found in the"
                                + " files of the provider's disks while other ranks run, and are intact when it runs again, on P = 1 and P = 2.",
                        List.of(seed("contexts swapped to disk (EM-BSP)")), ExternalMemoryRules::contextsLeaveMemory));
    }

    // ------------------------------------------------------------------ EMBSP.01

    private static void collectivesMatchTheThreadedProvider(MessagingRuleContext c) {
        LockstepProvider reference = Lockstep.find(REFERENCE).orElseThrow(() -> new RuleSkipped("the threaded reference provider '"
                + REFERENCE + "' is not installed"));
        MessagingTarget threaded = MessagingTarget.of(reference, Capabilities.of(2 * RANKS_PER_PROCESSOR));
        for (int processors : List.of(1, 2)) {
            int v = ranks(c, processors, false);
            Map<Integer, List<String>> expected = new ConcurrentHashMap<>();
            c.run(threaded, threaded.jobOptions(v), c.limits(), rank -> expected.put(rank.rank(), CollectiveDigests.of(rank.comm())))
                    .requireOk("every collective on " + v + " ranks of " + REFERENCE);
            Map<Integer, List<String>> actual = new ConcurrentHashMap<>();
            // the kit's own memory sizes: one context holds every buffer of the program at once
            withScratch(c, processors, v, CONTEXT, ROOMY_BUDGET, (options, report, disks) -> c.run(c.target(), options, limits(c),
                    rank -> actual.put(rank.rank(), CollectiveDigests.of(rank.comm())))
                    .requireOk("every collective on v = " + v + " ranks, P = " + processors));
            for (int r = 0; r < v; r++) {
                List<String> want = expected.get(r);
                List<String> got = actual.get(r);
                for (int i = 0; i < want.size(); i++) {
                    String w = want.get(i);
                    String g = got == null || i >= got.size() ? "nothing" : got.get(i);
                    check(w.equals(g), "P = " + processors + ", v = " + v + ", rank " + r + ": " + g + "; the threaded provider gives " + w);
                }
            }
        }
    }

    // ------------------------------------------------------------------ EMBSP.02

    private static void countedIoWithinItsBound(MessagingRuleContext c) {
        for (int processors : List.of(1, 2)) {
            int v = ranks(c, processors, true);
            withScratch(c, processors, v, CONTEXT, BUDGET_CONTEXTS * CONTEXT, (options, report, disks) -> {
                c.run(c.target(), options, limits(c), ExternalMemoryRules::keepAndExchange)
                        .requireOk("collectives over kept memory on v = " + v + " ranks, P = " + processors);
                Map<String, String> line = ExternalMemoryRouting.readReport(report).orElseThrow(() -> new RuleViolation("P = " + processors
                        + ": the provider wrote no report to " + report));
                String where = "P = " + processors + ", v = " + v + ": ";
                long swap = number(line, "swap_bytes", where);
                long delivery = number(line, "delivery_bytes", where);
                long bound = number(line, "bound_bytes", where);
                check("true".equals(line.get("within_bounds")), where + "the provider reports a call beyond its bound: within_bounds="
                        + line.get("within_bounds") + " (swap " + swap + ", delivery " + delivery + ", bound " + bound + " bytes)");
                check(swap + delivery <= bound, where + "counted I/O " + (swap + delivery) + " bytes exceeds the reported bound " + bound);
            });
        }
    }

    private static long number(Map<String, String> line, String key, String where) {
        String value = line.get(key);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException | NullPointerException e) {
            throw new RuleViolation(where + "the report has no number " + key + " (got " + value + ")");
        }
    }

    /** Keeps {@link #KEPT} patterned bytes across alltoallv, bcast, gather and allreduce, and checks both. */
    private static void keepAndExchange(org.lockstep.conformance.run.RankContext rank) {
        Communicator w = rank.comm();
        int n = w.size();
        int me = w.rank();
        MemorySegment kept = w.allocate(KEPT);
        PayloadPattern.fill(kept, keptKey(me), KEPT);
        long[] send = new long[n];
        long[] recv = new long[n];
        long[] sendAt = new long[n];
        long[] recvAt = new long[n];
        long sendTotal = 0;
        long recvTotal = 0;
        for (int j = 0; j < n; j++) {
            send[j] = messageBytes(me, j);
            recv[j] = messageBytes(j, me);
            sendAt[j] = sendTotal;
            recvAt[j] = recvTotal;
            sendTotal += send[j];
            recvTotal += recv[j];
        }
        MemorySegment out = w.allocate(sendTotal);
        MemorySegment in = w.allocate(recvTotal);
        for (int j = 0; j < n; j++) {
            PayloadPattern.fill(out.asSlice(sendAt[j], send[j]), messageKey(me, j), send[j]);
        }
        w.alltoallv(out, send, sendAt, Datatype.BYTE, in, recv, recvAt);
        for (int i = 0; i < n; i++) {
            check(PayloadPattern.matches(in.asSlice(recvAt[i], recv[i]), messageKey(i, me), recv[i]), "rank " + me
                    + " got a wrong alltoallv message from rank " + i);
        }
        w.free(in);
        w.free(out);
        int bcast = 96 << 10;
        MemorySegment b = w.allocate(bcast);
        if (me == 0) {
            PayloadPattern.fill(b, 77, bcast);
        }
        w.bcast(b, bcast, Datatype.BYTE, 0);
        check(PayloadPattern.matches(b, 77, bcast), "rank " + me + " did not get rank 0's broadcast");
        w.free(b);
        MemorySegment sum = w.allocate(Long.BYTES * 16L);
        MemorySegment mine = w.allocate(Long.BYTES * 16L);
        for (int i = 0; i < 16; i++) {
            mine.setAtIndex(ValueLayout.JAVA_LONG, i, me + i);
        }
        w.allreduce(mine, sum, 16, Datatype.LONG, org.lockstep.api.Op.SUM);
        for (int i = 0; i < 16; i++) {
            check(sum.getAtIndex(ValueLayout.JAVA_LONG, i) == (long) n * (n - 1) / 2 + (long) n * i, "allreduce on rank " + me);
        }
        w.free(mine);
        w.free(sum);
        long firstMismatch = PayloadPattern.firstMismatch(kept, keptKey(me), KEPT);
        check(firstMismatch < 0, "rank " + me + "'s kept memory changed across supersteps at byte " + firstMismatch);
        w.free(kept);
    }

    private static long messageBytes(int from, int to) {
        return ((from * 7L + to * 3L) % 5) * 4096 + 100 + from;
    }

    private static long messageKey(int from, int to) {
        return 50_000L + from * 1_000L + to;
    }

    private static long keptKey(int rank) {
        return 0x6b65_7074_0000L + rank;
    }

    // ------------------------------------------------------------------ EMBSP.03

    private static void contextsLeaveMemory(MessagingRuleContext c) {
        for (int processors : List.of(1, 2)) {
            int v = ranks(c, processors, true);
            withScratch(c, processors, v, CONTEXT, BUDGET_CONTEXTS * CONTEXT, (options, report, disks) -> {
                Map<Integer, Set<Integer>> foundBy = new ConcurrentHashMap<>();
                c.run(c.target(), options, limits(c), rank -> {
                    Communicator w = rank.comm();
                    int me = w.rank();
                    MemorySegment kept = w.allocate(KEPT);
                    PayloadPattern.fill(kept, keptKey(me), KEPT);
                    kept.asSlice(0, MARKER).copyFrom(marker(me));
                    // two supersteps: every rank has had to give up its memory to the others at least once
                    w.barrier();
                    w.barrier();
                    foundBy.put(me, markersOnDisk(disks, w.size()));
                    w.barrier();
                    check(kept.asSlice(0, MARKER).mismatch(marker(me)) < 0, "rank " + me + "'s first bytes changed across supersteps");
                    long firstMismatch = kept.asSlice(MARKER).mismatch(PayloadPattern.of(keptKey(me), (int) KEPT).asSlice(MARKER));
                    check(firstMismatch < 0, "rank " + me + "'s kept memory changed across supersteps at byte " + (MARKER + firstMismatch));
                    w.free(kept);
                }).requireOk("ranks keeping " + KEPT + " bytes each on v = " + v + ", P = " + processors);
                Set<Integer> found = new TreeSet<>();
                foundBy.values().forEach(found::addAll);
                List<Integer> missing = new ArrayList<>();
                for (int r = 0; r < v; r++) {
                    if (!found.contains(r)) {
                        missing.add(r);
                    }
                }
                check(missing.isEmpty(), "P = " + processors + ", v = " + v + ": the bytes of rank(s) " + missing + " (" + KEPT
                        + " each, " + (v / processors) + " ranks per processor against a budget of " + BUDGET_CONTEXTS * CONTEXT
                        + " bytes) were in no file under the provider's disk directory " + disks + " while other ranks ran");
            });
        }
    }

    /** Each rank's 64 bytes that appear nowhere else: the kit looks for them in the provider's files. */
    private static MemorySegment marker(int rank) {
        MemorySegment m = MemorySegment.ofArray(new long[MARKER / Long.BYTES]);
        for (int i = 0; i < MARKER / Long.BYTES; i++) {
            m.setAtIndex(ValueLayout.JAVA_LONG, i, 0x4c6f_636b_7374_6570L ^ (rank * 0x9E37_79B9_7F4A_7C15L) ^ (i * 0xBF58_476D_1CE4_E5B9L));
        }
        return m;
    }

    /** The ranks whose markers are in some file under {@code disks}, at 8-byte-aligned positions. */
    private static Set<Integer> markersOnDisk(Path disks, int ranks) {
        Map<Long, Integer> byFirstWord = new HashMap<>();
        for (int r = 0; r < ranks; r++) {
            byFirstWord.put(marker(r).get(ValueLayout.JAVA_LONG, 0), r);
        }
        Set<Integer> found = new TreeSet<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(disks)) {
            files = walk.filter(Files::isRegularFile).sorted(Comparator.naturalOrder()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the provider's disk directory " + disks, e);
        }
        ByteBuffer chunk = ByteBuffer.allocate(1 << 20).order(ByteOrder.nativeOrder());
        for (Path f : files) {
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                long position = 0;
                while (true) {
                    chunk.clear();
                    int read = ch.read(chunk, position);
                    if (read <= 0) {
                        break;
                    }
                    MemorySegment s = MemorySegment.ofBuffer(chunk.flip());
                    for (long at = 0; at + MARKER <= s.byteSize(); at += Long.BYTES) {
                        Integer r = byFirstWord.get(s.get(ValueLayout.JAVA_LONG_UNALIGNED, at));
                        if (r != null && s.asSlice(at, MARKER).mismatch(marker(r)) < 0) {
                            found.add(r);
                        }
                    }
                    // overlap so that a marker across two chunks is seen
                    position += Math.max(Long.BYTES, read - MARKER + Long.BYTES) / Long.BYTES * Long.BYTES;
                    if (read < chunk.capacity()) {
                        break;
                    }
                }
            } catch (java.nio.file.NoSuchFileException e) {
                // a file the provider closed meanwhile
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the provider's file " + f, e);
            }
        }
        return found;
    }

    // ------------------------------------------------------------------ shared

    /**
     * v for a run on P processors: {@link #RANKS_PER_PROCESSOR} per processor, or ({@code exact} false)
     * as many as the declared largest world allows, at least two per processor.
     */
    private static int ranks(MessagingRuleContext c, int processors, boolean exact) {
        int wanted = RANKS_PER_PROCESSOR * processors;
        int v = Math.min(c.capabilities().maxRanks() / processors * processors, wanted);
        if (v < (exact ? wanted : 2 * processors)) {
            throw new RuleSkipped("needs " + (exact ? wanted : 2 * processors) + " ranks on " + processors
                    + " real processor(s); the provider declares at most " + c.capabilities().maxRanks());
        }
        return v;
    }

    private static RunLimits limits(MessagingRuleContext c) {
        RunLimits base = c.limits();
        // real processors other than the first cannot take part in the end-of-run point-to-point exchange
        return new RunLimits(max(base.deadline(), MIN_DEADLINE), max(base.stallTimeout(), MIN_STALL), false);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @FunctionalInterface
    private interface ScratchRun {
        void run(JobOptions options, Path report, Path disks) throws Exception;
    }

    /** Runs {@code body} with the target set up for {@code processors} and a disk directory and report of the kit's own, removed after. */
    private static void withScratch(MessagingRuleContext c, int processors, int v, long context, long memory, ScratchRun body) {
        ExternalMemoryRouting routing = c.capabilities().externalMemory().orElseThrow(() -> new RuleSkipped(
                "EXTERNAL_MEMORY is declared without a routing"));
        Path dir = null;
        try {
            dir = Files.createTempDirectory("lockstep-kit-embsp");
            Path disks = Files.createDirectory(dir.resolve("disks"));
            Path report = dir.resolve("report.txt");
            JobOptions options = routing.apply(c.target().jobOptions(v), new ExternalMemoryRouting.Shape(processors, 1, context,
                    memory, disks, report));
            body.run(options, report, disks);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new RuleViolation("P = " + processors + ": " + e, "", java.util.OptionalLong.empty(), e);
        } finally {
            delete(dir);
        }
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // the temporary directory stays; nothing else is touched
        }
    }
}
