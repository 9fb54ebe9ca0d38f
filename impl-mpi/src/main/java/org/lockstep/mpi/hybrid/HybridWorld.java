package org.lockstep.mpi.hybrid;

import org.lockstep.api.Communicator;
import org.lockstep.mpi.comm.MpiCommunicator;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * What every hybrid communicator of a rank shares: the two world communicators (native MPI over
 * all ranks, the local transport over this host's), this rank's host, and where each world rank
 * sits in its host's local world. A communicator spanning ranks of several communicators (an
 * intercommunicator's bridge) is made from the worlds, since its members need not share any other
 * communicator.
 *
 * @param mpi         native MPI's world
 * @param local       the local transport's world of this host
 * @param host        this rank's host index (the same at every rank of the host)
 * @param localRankOf each world rank's rank in the local world of this host, or -1 on another host
 * @param idlePolicy  how a hybrid wait backs off: by how many ranks share this machine's cores
 */
record HybridWorld(MpiCommunicator mpi, Communicator local, int host, int[] localRankOf, IdleStrategy.Policy idlePolicy) {

    /** The world of the world communicator whose members sit as {@code layout} says. */
    static HybridWorld of(MpiCommunicator mpi, Communicator local, HostLayout layout, IdleStrategy.Policy idlePolicy) {
        int[] here = new int[mpi.size()];
        for (int r = 0; r < here.length; r++) {
            here[r] = layout.sameHost(r) ? layout.localRankOf()[r] : -1;
        }
        return new HybridWorld(mpi, local, layout.myHost(), here, idlePolicy);
    }
}
