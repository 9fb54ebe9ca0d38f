package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SizeListTest {
    @Test
    void rangeDoublesFromItsStartToItsEnd() {
        List<Long> expected = new ArrayList<>();
        for (long s = 8; s <= 4L << 20; s *= 2) {
            expected.add(s);
        }
        assertEquals(expected, SizeList.parse("8..4m").sizes());
        assertEquals(20, expected.size());
    }

    @Test
    void listItemsAndRangesMergeSortedWithoutDuplicates() {
        assertEquals(List.of(0L, 8L, 16L, 32L, 4096L, 1L << 20), SizeList.parse("4096, 1m,8..32,16,0").sizes());
    }

    @Test
    void rangeThatIsNotAPowerOfTwoApartStopsBelowItsEnd() {
        assertEquals(List.of(3L, 6L, 12L), SizeList.parse("3..20").sizes());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "8,,16", "abc", "8..x", "0..64", "64..8", "-8", "8...16", "4q"})
    void badSizesAreRejectedNamingTheItem(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SizeList.parse(text));
        assertTrue(!e.getMessage().isBlank());
    }

    @Test
    void singleSizeConverterAcceptsSuffixes() {
        assertEquals(4096L, new SizeList.SingleSize().convert("4k"));
    }
}
