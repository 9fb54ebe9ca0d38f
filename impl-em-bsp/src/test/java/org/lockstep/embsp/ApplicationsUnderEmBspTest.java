package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockstep.api.JobOptions;
import org.lockstep.applications.Application;
import org.lockstep.applications.ListRanking;
import org.lockstep.applications.PrefixSums;
import org.lockstep.applications.SampleSort;

/**
 * The applications (module org.lockstep.applications) under EM-BSP: each checks itself, and its digest is the same for every number
 * of VPs, every I/O driver and every thread driver, and equal to a direct sequential computation.
 */
class ApplicationsUnderEmBspTest {
    private static final long KEYS = 60_000;
    private static final long VALUES = 50_000;
    private static final long NODES = 20_000;

    record Case(String name, LongFunction<Application> make, long size) {
    }

    static final List<Case> CASES = List.of(
            new Case("sort", SampleSort::new, KEYS),
            new Case("prefix-sums", PrefixSums::new, VALUES),
            new Case("list-ranking", ListRanking::new, NODES));

    static Stream<Arguments> configurations() {
        return Stream.of(
                Arguments.of(8, 2, "sync", "virtual"),
                Arguments.of(8, 2, "async", "platform"),
                Arguments.of(8, 2, "mmap", "sequential"),
                Arguments.of(5, 1, "sync", "sequential"),
                Arguments.of(12, 3, "async", "virtual"));
    }

    @ParameterizedTest(name = "v={0} k={1} io={2} threads={3}")
    @MethodSource("configurations")
    void applicationsCheckThemselvesAndAgreeWithTheSequentialAnswer(int v, int k, String io, String threads) {
        for (Case c : CASES) {
            Application app = c.make().apply(c.size());
            JobOptions job = EmBspTestSupport.job(v, k, 1 << 20, 4096).with("lockstep.embsp.io", io)
                    .with("lockstep.embsp.threads", threads);
            ConcurrentHashMap<Integer, Long> digests = new ConcurrentHashMap<>();
            var report = EmBspTestSupport.run(job, w -> digests.put(w.rank(), app.run(w)));
            assertEquals(v, digests.size(), c.name());
            assertEquals(1, digests.values().stream().distinct().count(), c.name() + ": one digest on every rank " + digests);
            assertEquals(app.expectedDigest(), digests.get(0), c.name() + " digest under " + io + "/" + threads);
            if (!io.equals("mmap")) {
                assertTrue(report.withinBounds(), c.name() + " within the I/O bounds");
            }
        }
    }

    @Test
    void sortingMovesEveryKeyThroughDiskAndKeepsWithinTheBound() {
        // contexts just big enough: the VPs are swapped at every superstep
        int v = 16;
        long keys = 200_000;
        JobOptions job = EmBspTestSupport.job(v, 2, EmBspTestSupport.roundUp(SampleSort.contextBytes(keys, v), 4096), 4096);
        var report = EmBspTestSupport.run(job, w -> new SampleSort(keys).run(w));
        assertTrue(report.total().swapBytes() > 8 * keys, "the keys went to disk and back: " + report.keyValueLine());
        assertTrue(report.withinBounds());
    }
}
