package org.lockstep.applications;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The page index gives the plain binary search's lower bound for every bound, wherever the keys start. */
class PageIndexTest {
    @ParameterizedTest(name = "{0} keys {1} bytes past a page, values below {2}")
    @CsvSource({"0, 0, 10", "1, 0, 10", "511, 8, 10", "512, 0, 100", "513, 4088, 100", "5000, 24, 50", "5000, 0, -1",
            "20000, 2048, 1000000"})
    void lowerBoundsAgreeWithTheWholeSearch(int count, long skew, long values) {
        SplittableRandom random = new SplittableRandom(count * 31L + skew);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(8L * count + 4096, 4096);
            MemorySegment keys = page.asSlice(skew, 8L * count);
            MemorySegment scratch = arena.allocate(8L * Math.max(1, count));
            for (int i = 0; i < count; i++) {
                // few distinct values give long runs of equal keys across pages; -1 means the whole unsigned range
                keys.setAtIndex(ValueLayout.JAVA_LONG, i, values < 0 ? random.nextLong() : random.nextLong(values));
            }
            Keys.radixSort(keys, scratch, count);
            PageIndex index = new PageIndex(keys, count, arena.allocate(8 * PageIndex.entries(count)));
            for (int t = 0; t < 2000; t++) {
                long bound = switch (t % 4) {
                    case 0 -> count == 0 ? 0 : keys.getAtIndex(ValueLayout.JAVA_LONG, random.nextInt(count));
                    case 1 -> values < 0 ? random.nextLong() : random.nextLong(values + 2);
                    case 2 -> t % 8 == 2 ? 0 : -1L;
                    default -> count == 0 ? 1 : keys.getAtIndex(ValueLayout.JAVA_LONG, random.nextInt(count)) + 1;
                };
                assertEquals(Keys.lowerBound(keys, count, bound), index.lowerBound(bound), "bound " + Long.toUnsignedString(bound));
            }
        }
    }

    @Test
    void aTooSmallIndexIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment keys = arena.allocate(8L * 4096, 4096);
            assertThrows(IllegalArgumentException.class, () -> new PageIndex(keys, 4096, arena.allocate(8 * 4)));
        }
    }
}
