package org.lockstep.spi.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class CollectiveTagTest {
    private static final int MPICH_TAG_UB = (1 << 28) - 1;

    @Test
    void tagsWithinTheBoundAreKept() {
        assertEquals(77, CollectiveTag.fold(77, 32767));
        int tag = CollectiveTag.of(CollectiveTag.base(5), 3);
        assertEquals(tag, CollectiveTag.fold(tag, Integer.MAX_VALUE));
    }

    @Test
    void foldedCollectiveTagsStayWithinTheBoundAndApartForCallsInFlightTogether() {
        Set<Integer> seen = new HashSet<>();
        // 32768 calls of MPICH's bound, three steps each, from a sequence far from zero
        for (long sequence = 100_000; sequence < 100_000 + (1 << 15); sequence++) {
            for (int step : new int[] {0, 1, 4095}) {
                int folded = CollectiveTag.fold(CollectiveTag.of(CollectiveTag.base(sequence), step), MPICH_TAG_UB);
                assertTrue(folded >= 1 << 27 && folded <= MPICH_TAG_UB, () -> "folded " + folded);
                assertTrue(seen.add(folded), () -> "two calls in flight share tag " + folded);
            }
        }
    }

    @Test
    void aBoundThatIsNoPowerOfTwoMinusOneIsKept() {
        int bound = 1_000_000;
        int folded = CollectiveTag.fold(CollectiveTag.of(CollectiveTag.base(CollectiveTag.SEQUENCE_MASK), CollectiveTag.STEP_MASK), bound);
        assertTrue(folded <= bound, () -> "folded " + folded);
    }

    @Test
    void onlyCollectiveTagsFold() {
        assertThrows(IllegalArgumentException.class, () -> CollectiveTag.fold(1 << 29, MPICH_TAG_UB));
        assertThrows(IllegalArgumentException.class, () -> CollectiveTag.fold(CollectiveTag.base(1), 4095));
    }
}
