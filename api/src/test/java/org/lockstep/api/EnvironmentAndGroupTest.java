package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EnvironmentAndGroupTest {

    @Test
    void wtimeAdvancesInWtickSteps() {
        double a = Environment.wtime();
        double b = Environment.wtime();
        assertTrue(b >= a);
        assertEquals(1e-9, Environment.wtick());
        assertFalse(Environment.processorName().isEmpty());
        assertEquals(Environment.ThreadLevel.SERIALIZED, Environment.threadLevel());
    }

    @Test
    void groupOperationsKeepTheStandardsOrder() {
        Group world = Group.of(2, 0, 1, 2, 3, 4);
        assertEquals(2, world.rank());
        Group g = world.incl(4, 2, 0);
        assertArrayEquals(new int[] {4, 2, 0}, g.worldRanks());
        assertEquals(1, g.rank());
        assertArrayEquals(new int[] {1, 3}, world.excl(4, 2, 0).worldRanks());
        assertArrayEquals(new int[] {4, 2, 0, 1}, g.union(world.incl(1, 2)).worldRanks());
        assertArrayEquals(new int[] {2}, g.intersection(world.incl(1, 2)).worldRanks());
        assertArrayEquals(new int[] {4, 0}, g.difference(world.incl(1, 2)).worldRanks());
        assertArrayEquals(new int[] {0, 2, 4}, world.rangeIncl(new int[][] {{0, 4, 2}}).worldRanks());
        assertArrayEquals(new int[] {1, 3}, world.rangeExcl(new int[][] {{0, 4, 2}}).worldRanks());
        assertArrayEquals(new int[] {2, Communicator.UNDEFINED}, world.translateRanks(new int[] {0, 1}, g));
        assertEquals(Group.Comparison.SIMILAR, g.compare(world.incl(0, 2, 4)));
        assertEquals(Group.Comparison.IDENT, g.compare(world.incl(4, 2, 0)));
        assertEquals(Group.Comparison.UNEQUAL, g.compare(Group.EMPTY));
        assertEquals(Communicator.UNDEFINED, world.incl(0, 1).rank());
        assertEquals(ErrorClass.RANK, assertThrows(LockstepException.class, () -> world.incl(0, 0)).errorClass());
        assertEquals(ErrorClass.RANK, assertThrows(LockstepException.class, () -> world.excl(5)).errorClass());
    }
}
