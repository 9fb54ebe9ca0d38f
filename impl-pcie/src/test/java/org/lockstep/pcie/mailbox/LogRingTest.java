package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayDeque;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lockstep.pcie.layout.LayoutConstants;

/** The log ring's cursors against a model: retained blocks never overlap, never leave the ring, and free in order. */
class LogRingTest {
    private static final long START = 4096;
    private static final long LENGTH = 16 * LayoutConstants.CACHE_LINE;

    @Test
    void reservationsNeverOverlapRetainedBlocksAndEveryReleaseFreesTheOldest() {
        // each operation: 0..5 reserve (1..6 lines) and commit, 6..11 reserve (1..6 lines) and roll back, 12..15 release the oldest
        qt().withExamples(300).forAll(lists().of(integers().between(0, 15)).ofSizeBetween(1, 200)).checkAssert(this::run);
    }

    private void run(List<Integer> operations) {
        LogRing ring = new LogRing(START, LENGTH);
        ArrayDeque<long[]> retained = new ArrayDeque<>();
        for (int op : operations) {
            if (op <= 11) {
                long size = (op % 6 + 1) * LayoutConstants.CACHE_LINE - 8;
                long headBefore = ring.head();
                long tailBefore = ring.tail();
                long offset = ring.reserve(size);
                if (offset == LogRing.FAILED) {
                    continue;
                }
                long rounded = LayoutConstants.align(size, LayoutConstants.CACHE_LINE);
                assertTrue(offset >= START && offset + rounded <= START + LENGTH, "block " + offset + " leaves the ring");
                for (long[] block : retained) {
                    assertTrue(offset + rounded <= block[0] || block[0] + block[1] <= offset,
                            "block [" + offset + ", +" + rounded + ") overlaps retained [" + block[0] + ", +" + block[1] + ")");
                }
                long marker = ring.wrapMarker();
                if (marker >= 0) {
                    for (long[] block : retained) {
                        assertTrue(block[0] + block[1] <= marker, "the wrap marker at " + marker + " overwrites a retained block");
                    }
                }
                if (op >= 6) {
                    assertTrue(ring.rollback(offset));
                    assertEquals(headBefore, ring.head(), "a roll-back puts the head back");
                    assertEquals(tailBefore, ring.tail(), "a roll-back puts the tail back");
                } else {
                    ring.commit();
                    retained.addLast(new long[] {offset, rounded});
                }
            } else if (!retained.isEmpty()) {
                long[] oldest = retained.pollFirst();
                assertEquals(oldest[0], ring.oldest(), "the ring's oldest block");
                ring.release(oldest[1]);
            }
            assertEquals(retained.size(), ring.blocks());
            assertEquals(retained.stream().mapToLong(b -> b[1]).sum(), ring.bytesInUse());
            if (!retained.isEmpty()) {
                long oldest = retained.peekFirst()[0];
                assertEquals(oldest, ring.oldest());
                // or, when the oldest block wrapped to the start, the wrap point the walk starts from
                assertTrue(ring.tail() == oldest || oldest == START && ring.tail() > ring.head(),
                        "the tail " + ring.tail() + " is neither the oldest retained block " + oldest + " nor a wrap point");
            }
        }
    }

    @Test
    void aFullRingRefusesAndMakesRoomOnlyByReleasingItsOldestBlock() {
        LogRing ring = new LogRing(START, LENGTH);
        long[] offsets = new long[3];
        for (int i = 0; i < 3; i++) {
            offsets[i] = ring.reserve(5 * LayoutConstants.CACHE_LINE);
            ring.commit();
        }
        assertEquals(LogRing.FAILED, ring.reserve(2 * LayoutConstants.CACHE_LINE), "15 of 16 lines are retained");
        ring.release(5 * LayoutConstants.CACHE_LINE);
        long wrapped = ring.reserve(2 * LayoutConstants.CACHE_LINE);
        assertEquals(START, wrapped, "the next block wraps to the ring's start");
        assertEquals(START + 15 * LayoutConstants.CACHE_LINE, ring.wrapMarker(), "a wrap marker fills the line left at the end");
        assertFalse(ring.rollback(START + LENGTH), "an offset outside the ring is a heap block");
        assertTrue(ring.rollback(wrapped));
        assertEquals(LogRing.FAILED, ring.reserve(LENGTH), "a block as large as the ring never fits");
    }

    @Test
    void aRolledBackReservationThatRestartedAnEmptyRingLeavesItWhereItWas() {
        long line = LayoutConstants.CACHE_LINE;
        LogRing ring = new LogRing(START, LENGTH);
        long first = ring.reserve(10 * line);
        ring.commit();
        ring.release(10 * line); // empty, head and tail 10 lines in
        long restarted = ring.reserve(8 * line);
        assertEquals(START, restarted, "an empty ring starts over when the block does not fit before its end");
        assertTrue(ring.rollback(restarted));
        assertEquals(first + 10 * line, ring.tail(), "the roll-back puts the tail back too");
        long next = ring.reserve(2 * line);
        assertEquals(first + 10 * line, next);
        ring.commit();
        assertEquals(next, ring.oldest(), "the one retained block is the oldest");
    }

    @Test
    void theHeadReturnsToAFreeStartOnceItIsTheWarmSetIn() {
        long line = LayoutConstants.CACHE_LINE;
        LogRing ring = new LogRing(START, 4 * LogRing.WARM_BYTES);
        long blockLength = 2 * line;
        long blocks = LogRing.WARM_BYTES / blockLength;
        for (long i = 0; i < blocks; i++) {
            ring.reserve(blockLength);
            ring.commit();
        }
        ring.release(blockLength); // the first block: the start is free again
        ring.release(blockLength);
        assertEquals(START, ring.reserve(blockLength), "at the warm size the head goes back to the free start, not on into cold memory");
        assertEquals(START + LogRing.WARM_BYTES, ring.wrapMarker(), "and marks where it wrapped");
        ring.commit();
        assertEquals(START + 2 * blockLength, ring.oldest(), "the oldest block is still the third one");
    }
}
