package mpi;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.LockstepException;

/** {@code MPI_Dims_create} over Lockstep's {@link CartesianCommunicator#dimsCreate}. */
final class Dims {
    private Dims() {
    }

    static void create(int nnodes, int[] dims) throws MPIException {
        try {
            CartesianCommunicator.dimsCreate(nnodes, dims);
        } catch (LockstepException e) {
            throw ErrorClasses.exception("CartComm.createDims", e);
        }
    }
}
