package org.lockstep.embsp.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The receive regions a call still awaits: merged when recorded, cut by what arrives, only whole blocks skipped. */
class AwaitedRegionsTest {
    private static String show(List<long[]> ranges) {
        StringBuilder s = new StringBuilder();
        for (long[] r : ranges) {
            s.append('[').append(r[0]).append(',').append(r[1]).append(')');
        }
        return s.toString();
    }

    @Test
    void whatArrivesIsNoLongerAwaitedAndOnlyWholeBlocksAreSkipped() {
        AwaitedRegions awaited = new AwaitedRegions();
        awaited.await(100, 300);
        awaited.await(300, 900); // adjacent messages merge
        awaited.await(2000, 2100);
        assertEquals("[100,900)[2000,2100)", show(awaited.wholeBlocks(1)));
        assertEquals("[200,800)", show(awaited.wholeBlocks(200)), "the blocks of 200 wholly inside; none in [2000, 2100)");
        awaited.arrived(250, 450); // a message in the middle: both sides stay awaited
        assertEquals("[100,250)[450,900)[2000,2100)", show(awaited.wholeBlocks(1)));
        awaited.arrived(0, 2050); // one reaching over several
        assertEquals("[2050,2100)", show(awaited.wholeBlocks(1)));
        awaited.clear();
        assertEquals("", show(awaited.wholeBlocks(1)));
    }

    @Test
    void subtractLeavesThePartsOutsideTheRemovedRanges() {
        List<long[]> ranges = List.of(new long[] {0, 100}, new long[] {200, 400}, new long[] {500, 600});
        List<long[]> removed = List.of(new long[] {50, 60}, new long[] {90, 250}, new long[] {300, 350}, new long[] {500, 600});
        assertEquals("[0,50)[60,90)[250,300)[350,400)", show(AwaitedRegions.subtract(ranges, removed)));
        assertEquals("[0,100)", show(AwaitedRegions.subtract(List.of(new long[] {0, 100}), List.of())));
    }
}
