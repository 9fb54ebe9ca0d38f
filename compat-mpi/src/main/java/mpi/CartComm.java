package mpi;

import org.lockstep.api.Communicator;

/**
 * A communicator with a Cartesian topology ({@code MPI_Cart_create}). Topologies need Lockstep's
 * API for them (issue 16): none is made yet ({@link Intracomm#createCart} throws). The pure
 * arithmetic of {@link #createDims} works.
 */
public final class CartComm extends Intracomm {
    private static final String MISSING = "process topologies come with Lockstep's API for them (issue 16)";

    CartComm(Communicator comm, int[] members, String name) {
        super(comm, members, name);
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
        throw missing("CartComm.dup");
    }

    @Override
    public CartComm iDup() throws MPIException {
        throw missing("CartComm.iDup");
    }

    @Override
    public CartComm dupWithInfo(Info info) throws MPIException {
        throw missing("CartComm.dupWithInfo");
    }

    private MPIException missing(String call) throws MPIException {
        live(call);
        return ErrorClasses.unsupported(call, MISSING);
    }

    public CartParms getTopo() throws MPIException {
        throw missing("CartComm.getTopo");
    }

    public int getRank(int[] coords) throws MPIException {
        throw missing("CartComm.getRank");
    }

    public int[] getCoords(int rank) throws MPIException {
        throw missing("CartComm.getCoords");
    }

    public ShiftParms shift(int direction, int disp) throws MPIException {
        throw missing("CartComm.shift");
    }

    public CartComm sub(boolean[] remainDims) throws MPIException {
        throw missing("CartComm.sub");
    }

    public int map(int[] dims, boolean[] periods) throws MPIException {
        throw missing("CartComm.map");
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
