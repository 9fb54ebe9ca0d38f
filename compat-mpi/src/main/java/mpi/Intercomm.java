package mpi;

import org.lockstep.api.Intercommunicator;
import org.lockstep.api.LockstepException;

/**
 * A communicator between two groups ({@code MPI_Comm} for which {@code MPI_Comm_test_inter} is
 * true), over Lockstep's {@link Intercommunicator}: point-to-point to remote ranks, probes, and
 * the collectives barrier, bcast, gather(v), scatter(v), allGather(v), allToAll(v), reduce,
 * allReduce and reduceScatter(Block), blocking and non-blocking, with {@code MPI.ROOT} and
 * {@code MPI.PROC_NULL} roots; dup and merge. {@link #iDup()}, and the all-to-all forms given
 * different datatypes per side, throw {@link MPIException}s of class
 * {@link MPI#ERR_UNSUPPORTED_OPERATION} naming them. {@link #getParent()} says this job was not
 * spawned.
 */
public class Intercomm extends Comm {
    /** Lockstep's intercommunicator; null for {@code getParent()}'s null communicator. */
    private final Intercommunicator inter;

    Intercomm(Intercommunicator inter, int[] members, String name) {
        super(inter == null ? null : InterBridge.over(inter), members, name);
        this.inter = inter;
    }

    @Override
    public Intercomm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The same two groups on new contexts ({@code MPI_Comm_dup}); collective over both groups. */
    @Override
    public Intercomm dup() throws MPIException {
        live("Intercomm.dup");
        try {
            Intercomm copy = inherit(new Intercomm(inter.dup(), members, this + " (dup)"));
            copy.comm.setInfo(comm.info());
            return copy;
        } catch (LockstepException e) {
            throw fail("Intercomm.dup", e);
        }
    }

    @Override
    public Intercomm iDup() throws MPIException {
        live("Intercomm.iDup");
        throw ErrorClasses.unsupported("Intercomm.iDup", "Lockstep's intercommunicators have a blocking dup only");
    }

    @Override
    public Intercomm dupWithInfo(Info info) throws MPIException {
        Intercomm copy = dup();
        copy.setInfo(info);
        return copy;
    }

    /** Size of the remote group ({@code MPI_Comm_remote_size}). */
    public int getRemoteSize() throws MPIException {
        live("Intercomm.getRemoteSize");
        return inter.remoteSize();
    }

    /** The remote group ({@code MPI_Comm_remote_group}). */
    public Group getRemoteGroup() throws MPIException {
        live("Intercomm.getRemoteGroup");
        return new Group(inter.remoteGroup().worldRanks());
    }

    /** The intracommunicator of both groups, the group passing {@code high = false} first ({@code MPI_Intercomm_merge}). */
    public Intracomm merge(boolean high) throws MPIException {
        live("Intercomm.merge");
        try {
            org.lockstep.api.Communicator merged = inter.merge(high);
            return new Intracomm(merged, merged.group().worldRanks(), this + " (merged)");
        } catch (LockstepException e) {
            throw fail("Intercomm.merge", e);
        }
    }

    /** The intercommunicator to the job that spawned this one: none, as Lockstep spawns nothing ({@link #isNull()}). */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return new Intercomm(null, null, "MPI_COMM_NULL");
    }
}
