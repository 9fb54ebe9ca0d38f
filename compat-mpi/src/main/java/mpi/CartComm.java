package mpi;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;

/**
 * A communicator with a Cartesian topology ({@code MPI_Cart_create}): Lockstep's
 * {@link CartesianCommunicator}, made by {@link Intracomm#createCart}. Ranks keep their order
 * (Lockstep does not reorder), so {@link #map} answers each rank's own number inside the grid.
 */
public final class CartComm extends Intracomm {
    CartComm(Communicator comm, int[] members, String name) {
        super(comm, members, name);
    }

    /** What a rank outside the grid gets ({@code MPI_COMM_NULL}). */
    static CartComm nullCart() {
        return new CartComm(null, null, "MPI_COMM_NULL");
    }

    @Override
    int topology() {
        return MPI.CART;
    }

    @Override
    public CartComm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Override
    public CartComm dup() throws MPIException {
        return inherit(new CartComm(dupCommunicator("CartComm.dup", null), members, this + " (dup)"));
    }

    @Override
    public CartComm iDup() throws MPIException {
        return inherit(new CartComm(null, members, this + " (idup)")).awaitingDuplicate(startDup("CartComm.iDup"), "CartComm.iDup");
    }

    @Override
    public CartComm dupWithInfo(Info info) throws MPIException {
        return inherit(new CartComm(dupCommunicator("CartComm.dupWithInfo", info == null ? MPI.INFO_NULL : info), members,
                this + " (dup)"));
    }

    /** A query of the grid, its error through this communicator's handler. */
    @FunctionalInterface
    private interface Query<T> {
        T on(CartesianCommunicator grid);
    }

    private <T> T query(String call, Query<T> query) throws MPIException {
        CartesianCommunicator grid = (CartesianCommunicator) live(call);
        try {
            return query.on(grid);
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /** Dimensions, periods and this rank's coordinates ({@code MPI_Cart_get}). */
    public CartParms getTopo() throws MPIException {
        return query("CartComm.getTopo", g -> new CartParms(g.dims(), g.periods(), g.coords()));
    }

    /** The rank at {@code coords} ({@code MPI_Cart_rank}). */
    public int getRank(int[] coords) throws MPIException {
        return query("CartComm.getRank", g -> g.rank(coords));
    }

    /** The coordinates of {@code rank} ({@code MPI_Cart_coords}). */
    public int[] getCoords(int rank) throws MPIException {
        return query("CartComm.getCoords", g -> g.coords(rank));
    }

    /** Where a shift by {@code disp} along {@code direction} receives from and sends to ({@code MPI_Cart_shift}). */
    public ShiftParms shift(int direction, int disp) throws MPIException {
        CartesianCommunicator.Shift s = query("CartComm.shift", g -> g.shift(direction, disp));
        return new ShiftParms(s.source(), s.destination());
    }

    /** The grids of the dimensions kept ({@code MPI_Cart_sub}); collective. */
    public CartComm sub(boolean[] remainDims) throws MPIException {
        CartesianCommunicator part = query("CartComm.sub", g -> g.sub(remainDims));
        return new CartComm(part, membersOf(part), this + " (sub)");
    }

    /**
     * This rank's number in a grid of {@code dims} over this communicator, or {@code MPI.UNDEFINED}
     * beyond it ({@code MPI_Cart_map}): without reordering, its own rank.
     */
    public int map(int[] dims, boolean[] periods) throws MPIException {
        String call = "CartComm.map";
        Communicator c = live(call);
        if (dims == null || periods == null || periods.length < dims.length) {
            throw fail(ErrorClasses.argument(ErrorClasses.DIMS, call, "dims and periods must be given, a period for each dimension"));
        }
        long size = 1;
        for (int d : dims) {
            if (d <= 0) {
                throw fail(ErrorClasses.argument(ErrorClasses.DIMS, call, "a dimension must be positive, got " + d));
            }
            size = Math.min((long) Integer.MAX_VALUE + 1, size * d);
        }
        if (size > c.size()) {
            throw fail(ErrorClasses.argument(ErrorClasses.TOPOLOGY, call, "a grid of " + size + " ranks does not fit " + c.size()));
        }
        return c.rank() < size ? c.rank() : MPI.UNDEFINED;
    }

    /**
     * Fills the zero entries of {@code dims} so that the product of all entries is {@code nnodes},
     * the dimensions as close to each other as they can be, in non-increasing order
     * ({@code MPI_Dims_create}).
     */
    public static void createDims(int nnodes, int[] dims) throws MPIException {
        MPI.check();
        Dims.create(nnodes, dims);
    }
}
