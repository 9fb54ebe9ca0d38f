package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.lockstep.pcie.layout.LayoutConstants;

/** The free map of one heap partition, checked against a model of its cache lines. */
class HeapAllocatorTest {
    private static final long LINE = LayoutConstants.CACHE_LINE;
    /** Not zero, so that an offset taken for a length (or the reverse) shows. */
    private static final long BASE = 4096;

    /**
     * Three free extents where the one that fits is the root of the free map's tree and the one
     * above it is too small: removing the root makes TreeMap move the upper entry into the root's
     * node, so reading the entry after the removal named the upper extent (an offset past the end).
     */
    @Test
    void takingFromTheTopOfAnInnerExtentStaysInThatExtent() {
        HeapAllocator heap = new HeapAllocator(BASE, 20 * LINE);
        long low = heap.allocate(8 * LINE);
        heap.allocate(LINE);
        long middle = heap.allocate(8 * LINE);
        heap.allocate(LINE);
        long high = heap.allocate(LINE);
        heap.allocate(LINE);
        heap.release(low, 8 * LINE);
        heap.release(middle, 8 * LINE);
        heap.release(high, LINE);

        long block = heap.allocateFromTop(2 * LINE);

        assertEquals(middle + 6 * LINE, block, "the top two lines of the middle extent");
        heap.release(block, 2 * LINE);
        assertEquals(3 * LINE, heap.bytesInUse(), "the three one-line blocks between the extents");
        assertEquals(low, heap.allocate(8 * LINE), "the free map is as before");
        assertEquals(middle, heap.allocate(8 * LINE));
        assertEquals(high, heap.allocate(LINE));
        assertEquals(HeapAllocator.FAILED, heap.allocate(LINE));
    }

    @Test
    void deviceBufferPatternOfTopAllocationsFreesEveryBlock() {
        HeapAllocator heap = new HeapAllocator(BASE, 64 * LINE);
        long topmost = heap.allocateFromTop(LINE);
        long kept = heap.allocateFromTop(LINE);
        long inner = heap.allocateFromTop(8 * LINE);
        long keptToo = heap.allocateFromTop(LINE);
        heap.release(topmost, LINE);
        heap.release(inner, 8 * LINE);

        long block = heap.allocateFromTop(2 * LINE);

        assertEquals(inner + 6 * LINE, block);
        heap.release(block, 2 * LINE);
        heap.release(kept, LINE);
        heap.release(keptToo, LINE);
        assertEquals(0, heap.bytesInUse());
        assertEquals(BASE, heap.allocate(64 * LINE), "all of it coalesced again");
    }

    /** Random allocations from both ends and releases, each checked against a map of the lines. */
    @Test
    void randomAllocationsAndReleasesAgreeWithALineMap() {
        int lines = 256;
        SplittableRandom random = new SplittableRandom(11);
        for (int round = 0; round < 200; round++) {
            HeapAllocator heap = new HeapAllocator(BASE, lines * LINE);
            boolean[] used = new boolean[lines];
            List<long[]> live = new ArrayList<>();
            for (int step = 0; step < 400; step++) {
                if (!live.isEmpty() && random.nextInt(3) == 0) {
                    long[] block = live.remove(random.nextInt(live.size()));
                    heap.release(block[0], block[1]);
                    mark(used, block, false);
                    continue;
                }
                int size = 1 + random.nextInt(random.nextBoolean() ? 4 : 40);
                boolean fromTop = random.nextBoolean();
                long offset = fromTop ? heap.allocateFromTop(size * LINE) : heap.allocate(size * LINE);
                int expectedLine = fromTop ? highestFit(used, size) : lowestFit(used, size);
                String what = (fromTop ? "allocateFromTop(" : "allocate(") + size + " lines) in round " + round + ", step " + step;
                if (expectedLine < 0) {
                    assertEquals(HeapAllocator.FAILED, offset, what + ": no free run fits");
                    continue;
                }
                assertEquals(BASE + expectedLine * LINE, offset, what);
                long[] block = {offset, size * LINE};
                mark(used, block, true);
                live.add(block);
            }
            long inUse = 0;
            for (boolean u : used) {
                inUse += u ? LINE : 0;
            }
            assertEquals(inUse, heap.bytesInUse(), "round " + round);
        }
    }

    @Test
    void reserveOfAFreeBlockSucceedsOnceAndOnlyInside() {
        HeapAllocator heap = new HeapAllocator(BASE, 16 * LINE);
        assertTrue(heap.reserve(BASE + 4 * LINE, 2 * LINE));
        assertFalse(heap.reserve(BASE + 5 * LINE, LINE), "overlaps the reserved block");
        assertFalse(heap.reserve(BASE + 15 * LINE, 2 * LINE), "runs past the end");
        assertEquals(BASE + 14 * LINE, heap.allocateFromTop(2 * LINE));
        assertEquals(BASE, heap.allocate(4 * LINE));
        assertEquals(BASE + 6 * LINE, heap.allocate(8 * LINE));
        assertEquals(HeapAllocator.FAILED, heap.allocate(LINE));
    }

    private static void mark(boolean[] used, long[] block, boolean value) {
        int first = (int) ((block[0] - BASE) / LINE);
        for (int i = first; i < first + block[1] / LINE; i++) {
            assertEquals(!value, used[i], "line " + i + (value ? " handed out twice" : " released while free"));
            used[i] = value;
        }
    }

    /** First line of the lowest free run of at least {@code size} lines, or -1. */
    private static int lowestFit(boolean[] used, int size) {
        int run = 0;
        for (int i = 0; i < used.length; i++) {
            run = used[i] ? 0 : run + 1;
            if (run == size) {
                return i - size + 1;
            }
        }
        return -1;
    }

    /** First line of the top {@code size} lines of the highest free run that holds them, or -1. */
    private static int highestFit(boolean[] used, int size) {
        int i = used.length - 1;
        while (i >= 0) {
            if (used[i]) {
                i--;
                continue;
            }
            int end = i;
            while (i >= 0 && !used[i]) {
                i--;
            }
            if (end - i >= size) {
                return end - size + 1;
            }
        }
        return -1;
    }
}
