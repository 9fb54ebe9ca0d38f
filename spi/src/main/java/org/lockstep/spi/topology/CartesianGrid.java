package org.lockstep.spi.topology;

import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The arithmetic of a Cartesian grid (MPI 4.1 §8.5.1): row-major ranks (the last dimension
 * varies fastest), wrap-around in periodic dimensions, {@link Communicator#PROC_NULL} beyond the
 * edge of the others. Immutable; the arrays it hands out are copies.
 */
public final class CartesianGrid {
    private final int[] dims;
    private final boolean[] periods;
    private final int size;

    private CartesianGrid(int[] dims, boolean[] periods, int size) {
        this.dims = dims;
        this.periods = periods;
        this.size = size;
    }

    /**
     * A grid of {@code dims} with {@code periods}, checked against a communicator of {@code available} ranks.
     *
     * @throws LockstepException DIMS for a null, non-positive or mismatched argument, TOPOLOGY for more ranks than available
     */
    public static CartesianGrid of(int[] dims, boolean[] periods, int available) {
        if (dims == null || periods == null) {
            throw new LockstepException(ErrorClass.DIMS, "a Cartesian topology needs dims and periods, got " + (dims == null ? "null dims" : "null periods"));
        }
        if (dims.length != periods.length) {
            throw new LockstepException(ErrorClass.DIMS, dims.length + " dimensions but " + periods.length + " periods");
        }
        long size = 1;
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] <= 0) {
                throw new LockstepException(ErrorClass.DIMS, "dimension " + d + " has size " + dims[d] + "; each must be positive");
            }
            size *= dims[d];
            if (size > available) {
                break;
            }
        }
        if (size > available) {
            throw new LockstepException(ErrorClass.TOPOLOGY, "a grid of " + Arrays.toString(dims) + " needs "
                    + (size > Integer.MAX_VALUE ? "more than " + Integer.MAX_VALUE : String.valueOf(size)) + " ranks; the communicator has "
                    + available);
        }
        return new CartesianGrid(dims.clone(), periods.clone(), (int) size);
    }

    /** Number of ranks in the grid: the product of the dimensions. */
    public int size() {
        return size;
    }

    public int dimensions() {
        return dims.length;
    }

    public int[] dims() {
        return dims.clone();
    }

    public boolean[] periods() {
        return periods.clone();
    }

    /** The coordinates of {@code rank}; RANK outside the grid. */
    public int[] coords(int rank) {
        if (rank < 0 || rank >= size) {
            throw new LockstepException(ErrorClass.RANK, "rank " + rank + " is outside the grid of " + size + " ranks");
        }
        int[] coords = new int[dims.length];
        int rest = rank;
        for (int d = dims.length - 1; d >= 0; d--) {
            coords[d] = rest % dims[d];
            rest /= dims[d];
        }
        return coords;
    }

    /** The rank at {@code coords} (wrapped in periodic dimensions); DIMS for the wrong number, RANK for one off a non-periodic edge. */
    public int rank(int[] coords) {
        if (coords == null || coords.length != dims.length) {
            throw new LockstepException(ErrorClass.DIMS, "the grid has " + dims.length + " dimensions but "
                    + (coords == null ? "no" : String.valueOf(coords.length)) + " coordinates were given");
        }
        int rank = 0;
        for (int d = 0; d < dims.length; d++) {
            int c = coords[d];
            if (periods[d]) {
                c = Math.floorMod(c, dims[d]);
            } else if (c < 0 || c >= dims[d]) {
                throw new LockstepException(ErrorClass.RANK, "coordinate " + c + " is outside non-periodic dimension " + d
                        + " of size " + dims[d]);
            }
            rank = rank * dims[d] + c;
        }
        return rank;
    }

    /** The rank {@code displacement} steps from {@code rank} along {@code direction}, or PROC_NULL off a non-periodic edge. */
    public int neighbor(int rank, int direction, int displacement) {
        checkDirection(direction);
        int[] coords = coords(rank);
        long moved = (long) coords[direction] + displacement;
        if (periods[direction]) {
            coords[direction] = (int) Math.floorMod(moved, (long) dims[direction]);
        } else if (moved < 0 || moved >= dims[direction]) {
            return Communicator.PROC_NULL;
        } else {
            coords[direction] = (int) moved;
        }
        return rank(coords);
    }

    /** DIMS unless {@code direction} names a dimension. */
    public void checkDirection(int direction) {
        if (direction < 0 || direction >= dims.length) {
            throw new LockstepException(ErrorClass.DIMS, "direction " + direction + " is not a dimension of the grid, which has "
                    + dims.length);
        }
    }

    /**
     * The neighbourhood of {@code rank} as the neighbourhood collectives see it: for each dimension
     * the neighbour one step down, then one step up, both as source and as destination. The block a
     * rank sends up arrives as the block its upper neighbour receives from below, so each send's
     * step is its receive partner's index: block {@code 2d+1} goes as step {@code 2d} and vice versa
     * (MPI 4.1 §8.6; it matters where both neighbours are one rank, in a periodic dimension of 1 or 2).
     */
    public Neighborhood neighborhood(int rank) {
        int[] ranks = new int[2 * dims.length];
        int[] receiveSteps = new int[ranks.length];
        int[] sendSteps = new int[ranks.length];
        for (int d = 0; d < dims.length; d++) {
            ranks[2 * d] = neighbor(rank, d, -1);
            ranks[2 * d + 1] = neighbor(rank, d, 1);
        }
        for (int i = 0; i < ranks.length; i++) {
            receiveSteps[i] = i;
            sendSteps[i] = i ^ 1;
        }
        return new Neighborhood(ranks, receiveSteps, ranks.clone(), sendSteps);
    }

    /**
     * For {@code MPI_Cart_sub}: the color that groups the ranks agreeing in every dropped
     * coordinate (their row-major index over the dropped dimensions), and the grid of the kept ones.
     */
    public int subColor(int rank, boolean[] remainDims) {
        checkRemain(remainDims);
        int[] coords = coords(rank);
        int color = 0;
        for (int d = 0; d < dims.length; d++) {
            if (!remainDims[d]) {
                color = color * dims[d] + coords[d];
            }
        }
        return color;
    }

    /** The grid of the dimensions {@code remainDims} keeps. */
    public CartesianGrid sub(boolean[] remainDims) {
        checkRemain(remainDims);
        int kept = 0;
        for (boolean r : remainDims) {
            kept += r ? 1 : 0;
        }
        int[] subDims = new int[kept];
        boolean[] subPeriods = new boolean[kept];
        int at = 0;
        long subSize = 1;
        for (int d = 0; d < dims.length; d++) {
            if (remainDims[d]) {
                subDims[at] = dims[d];
                subPeriods[at++] = periods[d];
                subSize *= dims[d];
            }
        }
        return new CartesianGrid(subDims, subPeriods, (int) subSize);
    }

    private void checkRemain(boolean[] remainDims) {
        if (remainDims == null || remainDims.length != dims.length) {
            throw new LockstepException(ErrorClass.DIMS, "sub needs one remain flag for each of the " + dims.length + " dimensions, got "
                    + (remainDims == null ? "null" : String.valueOf(remainDims.length)));
        }
    }
}
