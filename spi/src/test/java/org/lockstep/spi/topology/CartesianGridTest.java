package org.lockstep.spi.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** The grid arithmetic: row-major ranks, wrap-around, PROC_NULL edges, the neighbourhood's order and steps, sub's colors. */
class CartesianGridTest {
    private final CartesianGrid grid = CartesianGrid.of(new int[] {3, 2}, new boolean[] {true, false}, 6);

    @Test
    void ranksAreRowMajorAndCoordinatesWrapOnlyInPeriodicDimensions() {
        assertArrayEquals(new int[] {1, 1}, grid.coords(3));
        assertEquals(3, grid.rank(new int[] {1, 1}));
        assertEquals(5, grid.rank(new int[] {-1, 1}));
        assertEquals(ErrorClass.RANK, assertThrows(LockstepException.class, () -> grid.rank(new int[] {0, 2})).errorClass());
    }

    @Test
    void neighboursAreNegativeThenPositivePerDimensionAndEachSendCarriesItsPartnersStep() {
        Neighborhood hood = grid.neighborhood(1); // coords (0, 1)
        assertArrayEquals(new int[] {5, 3, 0, Communicator.PROC_NULL}, hood.sources());
        assertArrayEquals(hood.sources(), hood.destinations());
        assertArrayEquals(new int[] {0, 1, 2, 3}, hood.receiveSteps());
        assertArrayEquals(new int[] {1, 0, 3, 2}, hood.sendSteps());
        assertEquals(Communicator.PROC_NULL, grid.neighbor(0, 1, -1));
        assertEquals(4, grid.neighbor(0, 0, -1));
    }

    @Test
    void subGroupsTheRanksThatAgreeInTheDroppedCoordinates() {
        boolean[] rows = {false, true};
        assertEquals(grid.subColor(2, rows), grid.subColor(3, rows));
        assertEquals(2, grid.sub(rows).size());
        assertEquals(0, grid.sub(new boolean[2]).dimensions());
        assertEquals(1, grid.sub(new boolean[2]).size());
    }

    @Test
    void badGridsAreTypedErrors() {
        assertEquals(ErrorClass.TOPOLOGY, assertThrows(LockstepException.class,
                () -> CartesianGrid.of(new int[] {4, 2}, new boolean[2], 7)).errorClass());
        assertEquals(ErrorClass.TOPOLOGY, assertThrows(LockstepException.class,
                () -> CartesianGrid.of(new int[] {1 << 20, 1 << 20}, new boolean[2], 7)).errorClass());
        assertEquals(ErrorClass.DIMS, assertThrows(LockstepException.class,
                () -> CartesianGrid.of(new int[] {2}, new boolean[2], 7)).errorClass());
        assertEquals(ErrorClass.DIMS, assertThrows(LockstepException.class,
                () -> CartesianGrid.of(new int[] {-2}, new boolean[1], 7)).errorClass());
        assertEquals(ErrorClass.DIMS, assertThrows(LockstepException.class, () -> grid.neighbor(0, 2, 1)).errorClass());
    }
}
