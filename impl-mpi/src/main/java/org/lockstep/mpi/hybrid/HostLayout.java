package org.lockstep.mpi.hybrid;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;

/**
 * Where the members of a hybrid communicator are: the host of each (a dense index), its rank in its
 * host's local communicator, and the host's leader (its local rank 0). Every member computes the
 * same layout from one allgather.
 *
 * @param hostOf      host index of each member
 * @param localRankOf rank of each member in its host's local communicator
 * @param myHost      this member's host
 * @param hostCount   number of hosts
 * @param contiguous  whether every host's members are consecutive ranks in local-rank order, so
 *                    that folding within hosts and then across hosts keeps rank order
 */
record HostLayout(int[] hostOf, int[] localRankOf, int myHost, int hostCount, boolean contiguous) {

    /** The layout of {@code all}, whose members sit on host {@code myHost} at local rank {@code localRank}. */
    static HostLayout gather(Communicator all, int myHost, int localRank) {
        int n = all.size();
        int[] pairs = new int[2 * n];
        all.allgather(MemorySegment.ofArray(new int[] {myHost, localRank}), 2, Datatype.INT, MemorySegment.ofArray(pairs));
        int[] hostOf = new int[n];
        int[] localRankOf = new int[n];
        for (int r = 0; r < n; r++) {
            hostOf[r] = pairs[2 * r];
            localRankOf[r] = pairs[2 * r + 1];
        }
        // Dense host indices in order of each host's first member, the order of the leaders' communicator.
        int[] dense = new int[Arrays.stream(hostOf).max().orElse(0) + 1];
        Arrays.fill(dense, -1);
        int hosts = 0;
        for (int r = 0; r < n; r++) {
            if (dense[hostOf[r]] < 0) {
                dense[hostOf[r]] = hosts++;
            }
        }
        boolean contiguous = true;
        for (int r = 0; r < n; r++) {
            hostOf[r] = dense[hostOf[r]];
            if (r > 0 && (hostOf[r] < hostOf[r - 1] || (hostOf[r] == hostOf[r - 1] && localRankOf[r] != localRankOf[r - 1] + 1))) {
                contiguous = false;
            }
            if (r > 0 && hostOf[r] != hostOf[r - 1] && localRankOf[r] != 0) {
                contiguous = false;
            }
        }
        return new HostLayout(hostOf, localRankOf, hostOf[all.rank()], hosts, contiguous);
    }

    boolean sameHost(int member) {
        return hostOf[member] == myHost;
    }

    /** The member at local rank {@code localRank} of this member's host. */
    int memberAt(int localRank) {
        for (int r = 0; r < hostOf.length; r++) {
            if (hostOf[r] == myHost && localRankOf[r] == localRank) {
                return r;
            }
        }
        throw new IllegalStateException("no member at local rank " + localRank + " of host " + myHost);
    }
}
