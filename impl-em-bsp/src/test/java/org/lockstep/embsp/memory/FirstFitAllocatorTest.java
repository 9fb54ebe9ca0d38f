package org.lockstep.embsp.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class FirstFitAllocatorTest {
    private static final long UNIT = 64;

    @Test
    void allocatesFromTheLowestAddressAndSplitsTheChunkStart() {
        FirstFitAllocator a = new FirstFitAllocator(1024, UNIT);
        assertEquals(0, a.allocate(100));
        assertEquals(128, a.allocate(64));
        assertEquals(192, a.allocate(1));
        assertEquals(128 + 64 + 64, a.allocatedBytes());
        assertEquals(1, a.freeChunks());
        assertEquals(1024 - 256, a.largestFree());
    }

    @Test
    void reusesFreedMemoryFirstFit() {
        FirstFitAllocator a = new FirstFitAllocator(1024, UNIT);
        long x = a.allocate(128);
        long y = a.allocate(128);
        long z = a.allocate(128);
        a.free(y);
        // a smaller request fits the hole left by y, which comes before the tail
        assertEquals(y, a.allocate(64));
        // a request the remaining hole cannot hold goes after z
        assertEquals(z + 128, a.allocate(128));
        assertEquals(0, x);
    }

    @Test
    void coalescesWithBothNeighbours() {
        FirstFitAllocator a = new FirstFitAllocator(4 * 256, UNIT);
        long[] c = {a.allocate(256), a.allocate(256), a.allocate(256), a.allocate(256)};
        assertEquals(-1, a.allocate(1));
        a.free(c[0]);
        a.free(c[2]);
        assertEquals(2, a.freeChunks());
        assertEquals(-1, a.allocate(512), "two separate holes of 256 cannot hold 512");
        a.free(c[1]);
        assertEquals(1, a.freeChunks(), "freeing the middle merges left and right");
        assertEquals(0, a.allocate(768));
        a.free(0);
        a.free(c[3]);
        assertEquals(1, a.freeChunks());
        assertEquals(1024, a.largestFree());
        assertEquals(0, a.allocatedBytes());
    }

    @Test
    void zeroByteAllocationsHaveAnAddressOfTheirOwn() {
        FirstFitAllocator a = new FirstFitAllocator(256, UNIT);
        long first = a.allocate(0);
        long second = a.allocate(0);
        assertTrue(first != second);
        assertEquals(UNIT, a.sizeAt(first));
    }

    @Test
    void refusesToFreeWhatItDidNotAllocate() {
        FirstFitAllocator a = new FirstFitAllocator(256, UNIT);
        long x = a.allocate(128);
        assertThrows(IllegalArgumentException.class, () -> a.free(x + UNIT));
        a.free(x);
        assertThrows(IllegalArgumentException.class, () -> a.free(x), "double free");
        assertThrows(IllegalArgumentException.class, () -> a.allocate(-1));
        assertThrows(IllegalArgumentException.class, () -> new FirstFitAllocator(100, UNIT));
        assertThrows(IllegalArgumentException.class, () -> new FirstFitAllocator(256, 48));
    }

    @Test
    void swapRangesAreAllocatedChunksRoundedToBlocksAndMerged() {
        FirstFitAllocator a = new FirstFitAllocator(64 * 1024, UNIT);
        long x = a.allocate(100);          // [0, 128)        -> block [0, 4096)
        long gap = a.allocate(12032);      // [128, 12160)    freed below
        long y = a.allocate(64);           // [12160, 12224)  -> [8192, 12288)
        long far = a.allocate(20000);      // [12224, 32256)  -> [12288, 32768), touches y's
        a.free(gap);
        List<long[]> ranges = a.allocatedBlockRanges(4096);
        assertEquals(2, ranges.size(), () -> describe(ranges));
        assertArrayEquals(new long[] {0, 4096}, ranges.get(0), "the freed chunk's blocks are not swapped");
        assertArrayEquals(new long[] {8192, 32768}, ranges.get(1), "touching ranges merge");
        assertEquals(4096 + 24576, a.swapBytes(4096));
        a.free(x);
        a.free(y);
        a.free(far);
        assertEquals(0, a.swapBytes(4096), "nothing allocated, nothing swapped");
    }

    /** Random allocations and frees against a bitmap model: no overlap, first fit, full coalescing. */
    @Test
    void matchesAReferenceModelOnRandomSequences() {
        Random random = new Random(20261201);
        int units = 512;
        for (int round = 0; round < 40; round++) {
            FirstFitAllocator a = new FirstFitAllocator(units * UNIT, UNIT);
            boolean[] used = new boolean[units];
            List<long[]> live = new ArrayList<>();
            for (int step = 0; step < 400; step++) {
                if (live.isEmpty() || random.nextInt(3) > 0) {
                    int want = 1 + random.nextInt(24);
                    long size = want * UNIT - random.nextInt((int) UNIT);
                    long expected = firstFit(used, want);
                    long got = a.allocate(size);
                    assertEquals(expected, got < 0 ? -1 : got / UNIT, "first fit for " + want + " units at step " + step);
                    if (got >= 0) {
                        for (int u = 0; u < want; u++) {
                            assertTrue(!used[(int) (got / UNIT) + u], "overlap");
                            used[(int) (got / UNIT) + u] = true;
                        }
                        live.add(new long[] {got, want});
                    }
                } else {
                    long[] victim = live.remove(random.nextInt(live.size()));
                    assertEquals(victim[1] * UNIT, a.free(victim[0]));
                    for (int u = 0; u < victim[1]; u++) {
                        used[(int) (victim[0] / UNIT) + u] = false;
                    }
                }
                assertEquals(freeRuns(used), a.freeChunks(), "free chunks are maximal runs (coalesced)");
                assertEquals(countUsed(used) * UNIT, a.allocatedBytes());
            }
        }
    }

    private static long firstFit(boolean[] used, int want) {
        int run = 0;
        for (int u = 0; u < used.length; u++) {
            run = used[u] ? 0 : run + 1;
            if (run == want) {
                return u - want + 1;
            }
        }
        return -1;
    }

    private static int freeRuns(boolean[] used) {
        int runs = 0;
        for (int u = 0; u < used.length; u++) {
            if (!used[u] && (u == 0 || used[u - 1])) {
                runs++;
            }
        }
        return runs;
    }

    private static int countUsed(boolean[] used) {
        int n = 0;
        for (boolean b : used) {
            n += b ? 1 : 0;
        }
        return n;
    }

    private static String describe(List<long[]> ranges) {
        StringBuilder s = new StringBuilder();
        for (long[] r : ranges) {
            s.append('[').append(r[0]).append(", ").append(r[1]).append(") ");
        }
        return s.toString();
    }
}
