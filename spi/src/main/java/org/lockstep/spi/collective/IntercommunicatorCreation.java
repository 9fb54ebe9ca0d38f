package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Group;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.spi.messaging.ArgumentChecks;

/**
 * How an intercommunicator comes to be ({@code MPI_Intercomm_create}): the two leaders swap their
 * groups over the peer communicator, every rank learns the other group from its leader, and both
 * groups make the bridge ({@link BridgedIntercommunicator}) on a context they agree on.
 */
final class IntercommunicatorCreation {
    private IntercommunicatorCreation() {
    }

    /** What a provider contributes to an intercommunicator: a communicator spanning ranks of several of its communicators. */
    interface Spanning {
        /** This rank's proposal for the new communicator's context (reserved here); the members agree on the largest. */
        long propose();

        /** The communicator of {@code worldRanks} (in that order, this rank among them) on the context {@code agreed}. */
        Communicator make(int[] worldRanks, long agreed);
    }

    private static final long AGREED = 0;
    private static final long OVERLAP = 1;
    private static final long LEADER_FAILED = 2;

    /**
     * {@code MPI_Intercomm_create}, collective over {@code local}: the members' context proposals meet
     * by a local allreduce; the leaders swap proposal and group over {@code peer} with {@code tag};
     * each leader broadcasts the outcome and the remote group; then every rank of both groups makes
     * the bridge and the two private channels.
     */
    static Intercommunicator create(Communicator local, int localLeader, Communicator peer, int remoteLeader, int tag,
                                    Spanning spanning) {
        ArgumentChecks.checkDestination(localLeader, local.size());
        if (localLeader == Communicator.PROC_NULL) {
            throw new LockstepException(ErrorClass.RANK, "the local leader must be a rank of the local communicator, not PROC_NULL");
        }
        ArgumentChecks.checkSendTag(tag);
        long[] proposal = {spanning.propose()};
        local.allreduce(Communicator.IN_PLACE, MemorySegment.ofArray(proposal), 1, Datatype.LONG, Op.MAX);
        int[] localWorld = local.group().worldRanks();
        long[] outcome = {AGREED, proposal[0], 0};
        int[] remoteWorld = new int[0];
        LockstepException leaderFailure = null;
        if (local.rank() == localLeader) {
            try {
                remoteWorld = swapWithRemoteLeader(peer, remoteLeader, tag, localWorld, outcome);
            } catch (LockstepException e) {
                leaderFailure = e;
                outcome[0] = LEADER_FAILED;
                outcome[2] = e.errorClass().ordinal(); // the members fail with the leader's class
            }
        }
        local.bcast(MemorySegment.ofArray(outcome), outcome.length, Datatype.LONG, localLeader);
        if (outcome[0] == LEADER_FAILED) {
            throw leaderFailure != null ? leaderFailure : new LockstepException(ErrorClass.values()[(int) outcome[2]],
                    "the local leader (rank " + localLeader + ") could not make the intercommunicator with the remote leader");
        }
        if (local.rank() != localLeader) {
            remoteWorld = new int[(int) outcome[2]];
        }
        local.bcast(MemorySegment.ofArray(remoteWorld), remoteWorld.length, Datatype.INT, localLeader);
        if (outcome[0] == OVERLAP) {
            throw new LockstepException(ErrorClass.GROUP, "the local and remote groups of an intercommunicator share a process (local "
                    + Arrays.toString(localWorld) + ", remote " + Arrays.toString(remoteWorld) + " in world ranks)");
        }
        boolean localFirst = localWorld[0] < remoteWorld[0];
        int[] both = new int[localWorld.length + remoteWorld.length];
        System.arraycopy(localFirst ? localWorld : remoteWorld, 0, both, 0, localFirst ? localWorld.length : remoteWorld.length);
        System.arraycopy(localFirst ? remoteWorld : localWorld, 0, both, localFirst ? localWorld.length : remoteWorld.length,
                localFirst ? remoteWorld.length : localWorld.length);
        Communicator bridge = spanning.make(both, outcome[1]);
        Communicator inside = local.dup();
        Communicator crossing = bridge.dup();
        int self = local.group().selfWorldRank();
        return new BridgedIntercommunicator(local.group(), Group.of(self, remoteWorld), localFirst, bridge, crossing, inside);
    }

    /** The leaders' exchange over {@code peer}: (proposal, group size), then the groups; fills {@code outcome}, returns the remote group. */
    private static int[] swapWithRemoteLeader(Communicator peer, int remoteLeader, int tag, int[] localWorld, long[] outcome) {
        if (peer == null) {
            throw new LockstepException(ErrorClass.COMM, "the local leader needs a peer communicator that holds both leaders");
        }
        if (remoteLeader < 0 || remoteLeader >= peer.size() || remoteLeader == peer.rank()) {
            throw new LockstepException(ErrorClass.RANK, "remote leader " + remoteLeader + " is not another rank of the peer communicator"
                    + " (size " + peer.size() + ", this rank " + peer.rank() + ")");
        }
        int remoteLeaderWorld = peer.group().worldRank(remoteLeader);
        for (int l : localWorld) {
            if (l == remoteLeaderWorld) {
                // that rank waits in this group's creation, not at the exchange: it would never answer
                throw new LockstepException(ErrorClass.RANK, "remote leader " + remoteLeader + " of the peer communicator is a member of"
                        + " the local group (world rank " + remoteLeaderWorld + "); it must lead the other group");
            }
        }
        long[] mine = {outcome[1], localWorld.length};
        long[] theirs = new long[2];
        peer.sendrecv(MemorySegment.ofArray(mine), 2, Datatype.LONG, remoteLeader, tag, MemorySegment.ofArray(theirs), 2, Datatype.LONG,
                remoteLeader, tag);
        int[] remoteWorld = new int[(int) theirs[1]];
        peer.sendrecv(MemorySegment.ofArray(localWorld), localWorld.length, Datatype.INT, remoteLeader, tag,
                MemorySegment.ofArray(remoteWorld), remoteWorld.length, Datatype.INT, remoteLeader, tag);
        outcome[1] = Math.max(outcome[1], theirs[0]);
        outcome[2] = remoteWorld.length;
        for (int r : remoteWorld) {
            for (int l : localWorld) {
                if (r == l) {
                    outcome[0] = OVERLAP;
                }
            }
        }
        return remoteWorld;
    }
}
