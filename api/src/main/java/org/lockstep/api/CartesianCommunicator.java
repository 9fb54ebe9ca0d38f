package org.lockstep.api;

/**
 * A communicator whose ranks form a Cartesian grid ({@code MPI_Cart_create}, MPI 4.1 §8.5.1):
 * made by {@link Communicator#createCart}. Ranks are laid out in row-major order: the last
 * dimension varies fastest. In a periodic dimension coordinates wrap around; in a non-periodic one
 * a neighbour beyond the edge is {@link Communicator#PROC_NULL}.
 *
 * <p>Its neighbourhood ({@link Communicator#neighborAllgather} and friends) is, for each dimension
 * in order, the neighbour in the negative direction, then the one in the positive direction; a
 * {@code PROC_NULL} neighbour's block is neither sent nor written. The block a rank sends in one
 * direction is the block its neighbour receives from the opposite one (MPI 4.1 §8.6), also where
 * both neighbours are the same rank (a periodic dimension of 1 or 2).
 *
 * <p>A duplicate ({@link #dup()}) keeps the topology; other constructors ({@link #split}, ...) do not.
 */
public interface CartesianCommunicator extends Communicator {
    /**
     * A balanced grid of {@code nodes} ranks in {@code dims.length} dimensions ({@code MPI_Dims_create}):
     * the zero entries of {@code dims} are set so that the product is {@code nodes} and the free
     * dimensions are as close to each other as possible, in non-increasing order; non-zero entries stay.
     *
     * @return {@code dims}, filled in
     * @throws LockstepException {@link ErrorClass#DIMS} for a negative entry, {@code nodes < 1}, or
     *         fixed entries whose product does not divide {@code nodes} (equal it, without free entries)
     */
    static int[] dimsCreate(int nodes, int[] dims) {
        return DimsCreation.fill(nodes, dims);
    }

    /** Where a shift's messages come from and go to ({@code MPI_Cart_shift}'s {@code rank_source}, {@code rank_dest}). */
    record Shift(int source, int destination) {
    }

    /** The number of dimensions ({@code MPI_Cartdim_get}). */
    int dimensions();

    /** The size of each dimension ({@code MPI_Cart_get}'s {@code dims}); a copy. */
    int[] dims();

    /** Whether each dimension is periodic ({@code MPI_Cart_get}'s {@code periods}); a copy. */
    boolean[] periods();

    /** This rank's coordinates ({@code MPI_Cart_get}'s {@code coords}). */
    int[] coords();

    /**
     * The coordinates of {@code rank} ({@code MPI_Cart_coords}).
     *
     * @throws LockstepException {@link ErrorClass#RANK} for a rank outside the grid
     */
    int[] coords(int rank);

    /**
     * The rank at {@code coords} ({@code MPI_Cart_rank}): in a periodic dimension any coordinate is
     * taken modulo the size.
     *
     * @throws LockstepException {@link ErrorClass#DIMS} for a wrong number of coordinates,
     *         {@link ErrorClass#RANK} for a coordinate outside a non-periodic dimension
     */
    int rank(int[] coords);

    /**
     * The ranks {@code displacement} steps below and above this one in {@code direction}
     * ({@code MPI_Cart_shift}): {@code source} is where a message shifted along comes from,
     * {@code destination} where this rank's goes; {@link Communicator#PROC_NULL} beyond a
     * non-periodic edge.
     *
     * @throws LockstepException {@link ErrorClass#DIMS} for a direction outside {@code [0, dimensions())}
     */
    Shift shift(int direction, int displacement);

    /**
     * The grids of the dimensions kept ({@code MPI_Cart_sub}): ranks that agree in the dropped
     * coordinates form one Cartesian communicator over the kept ones; collective. Dropping every
     * dimension gives each rank a grid of 0 dimensions holding itself.
     *
     * @throws LockstepException {@link ErrorClass#DIMS} if {@code remainDims} does not have one entry per dimension
     */
    CartesianCommunicator sub(boolean[] remainDims);
}
