package org.lockstep.applications;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;

/**
 * The applications as threads over the mailbox transport on the emulated device: each checks
 * itself, and every rank returns the digest computed sequentially.
 */
class ApplicationsTest {
    @ParameterizedTest(name = "{0} {1} on {2} ranks")
    @CsvSource({"sort, 30000, 1", "sort, 30000, 3", "sort, 40000, 4", "prefix-sums, 25000, 3", "prefix-sums, 7, 4",
            "list-ranking, 5000, 2", "list-ranking, 3001, 3", "list-ranking, 1, 1"})
    void everyRankReturnsTheSequentialDigest(String name, long size, int ranks) {
        Application app = Applications.create(name, List.of("--size", Long.toString(size)));
        ConcurrentHashMap<Integer, Long> digests = new ConcurrentHashMap<>();
        Lockstep.run(JobOptions.ofRanks(ranks).with("lockstep.device", "emulated"), w -> digests.put(w.rank(), app.run(w)));
        assertEquals(ranks, digests.size());
        for (long d : digests.values()) {
            assertEquals(app.expectedDigest(), d, name + " on rank set " + digests);
        }
    }

    @Test
    void differentSeedsGiveDifferentSortDigests() {
        long a = Applications.create("sort", List.of("--keys", "1000")).expectedDigest();
        long b = Applications.create("sort", List.of("--keys", "1000", "--seed", "7")).expectedDigest();
        assertTrue(a != b);
    }

    @Test
    void radixSortSortsUnsignedKeys() {
        int n = 10_000;
        long[] expected = new SplittableRandom(3).longs(n).toArray();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment keys = arena.allocate(8L * n);
            MemorySegment scratch = arena.allocate(8L * n);
            MemorySegment.copy(expected, 0, keys, ValueLayout.JAVA_LONG, 0, n);
            Keys.radixSort(keys, scratch, n);
            long[] sorted = keys.toArray(ValueLayout.JAVA_LONG);
            long[] reference = Arrays.stream(expected).map(k -> k ^ Long.MIN_VALUE).sorted().map(k -> k ^ Long.MIN_VALUE).toArray();
            assertTrue(Arrays.equals(reference, sorted));
            assertEquals(Keys.lowerBound(keys, n, sorted[n / 2]), n / 2L);
        }
    }

    @Test
    void argumentsAreParsedWithSizesAndNamedErrors() {
        assertEquals(64L << 10, Applications.create("sort", List.of("--keys", "64k")).size());
        assertEquals(12, Applications.create("prefix-sums", List.of("--values=12")).size());
        assertEquals(5, Applications.create("list-ranking", List.of("--nodes", "5")).size());
        LockstepException unknown = assertThrows(LockstepException.class, () -> Applications.create("sorting", List.of()));
        assertEquals(ErrorClass.ARG, unknown.errorClass());
        assertTrue(unknown.getMessage().contains("sorting"), unknown.getMessage());
        LockstepException wrongOption = assertThrows(LockstepException.class,
                () -> Applications.create("prefix-sums", List.of("--keys", "5")));
        assertTrue(wrongOption.getMessage().contains("--keys"), wrongOption.getMessage());
        assertThrows(LockstepException.class, () -> Applications.create("sort", List.of("--keys", "0")));
        assertThrows(LockstepException.class, () -> Applications.create("sort", List.of("--keys")));
    }

    @Test
    void contextEstimatesGrowWithTheShareOfEachRank() {
        for (String name : Applications.names()) {
            Application app = Applications.create(name, List.of("--size", "1m"));
            assertTrue(app.contextBytes(2) > app.contextBytes(8), name);
            assertTrue(app.contextBytes(4) >= 8 * (1L << 20) / 4, name);
        }
    }
}
