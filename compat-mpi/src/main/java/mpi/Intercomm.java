package mpi;

import org.lockstep.api.Communicator;

/**
 * A communicator between two groups ({@code MPI_Comm} for which {@code MPI_Comm_test_inter} is
 * true). Lockstep's API has no intercommunicators yet (issue 15), so none is ever made here:
 * {@link Comm#createIntercomm} and the dynamic-process calls throw, and {@link #getParent()}
 * says this job was not spawned.
 */
public class Intercomm extends Comm {
    private static final String MISSING = "Lockstep's API has no intercommunicators yet (issue 15)";

    Intercomm(Communicator comm, int[] members, String name) {
        super(comm, members, name);
    }

    @Override
    public Intercomm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Override
    public Intercomm dup() throws MPIException {
        live("Intercomm.dup");
        throw ErrorClasses.unsupported("Intercomm.dup", MISSING);
    }

    @Override
    public Intercomm iDup() throws MPIException {
        live("Intercomm.iDup");
        throw ErrorClasses.unsupported("Intercomm.iDup", MISSING);
    }

    @Override
    public Intercomm dupWithInfo(Info info) throws MPIException {
        return dup();
    }

    public int getRemoteSize() throws MPIException {
        live("Intercomm.getRemoteSize");
        throw ErrorClasses.unsupported("Intercomm.getRemoteSize", MISSING);
    }

    public Group getRemoteGroup() throws MPIException {
        live("Intercomm.getRemoteGroup");
        throw ErrorClasses.unsupported("Intercomm.getRemoteGroup", MISSING);
    }

    public Intracomm merge(boolean high) throws MPIException {
        live("Intercomm.merge");
        throw ErrorClasses.unsupported("Intercomm.merge", MISSING);
    }

    /** The intercommunicator to the job that spawned this one: none, as Lockstep spawns nothing ({@link #isNull()}). */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return new Intercomm(null, null, "MPI_COMM_NULL");
    }
}
