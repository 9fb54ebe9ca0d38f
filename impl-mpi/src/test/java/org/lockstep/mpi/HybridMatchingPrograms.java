package org.lockstep.mpi;

import static org.lockstep.mpi.MpiPrograms.check;
import static org.lockstep.mpi.MpiPrograms.pattern;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

/**
 * Matching across the hybrid provider's two transports, for 4 ranks as 2 hosts of 2 (ranks 0 and 1
 * on one, 2 and 3 on the other): what a receive posted with a wildcard source must take before
 * later probes and receives, and the progress a rank owes it while it blocks elsewhere.
 */
final class HybridMatchingPrograms {
    private HybridMatchingPrograms() {
    }

    static void wildcardsAcrossHosts(Communicator world) {
        check(world.size() == 4, "wildcards-across-hosts needs 4 ranks");
        aProbeSeesOnlyWhatNoPostedReceiveTakes(world);
        aWildcardReceiveMatchesWhileItsRankBlocksInASynchronousSend(world);
        aTruncatedReceiveFromAnotherHostKeepsItsLength(world);
    }

    /**
     * Rank 2 posts a wildcard receive, then rank 0's two messages arrive: the receive takes the
     * first (MPI 4.1 §3.5), so a probe after it reports the second, which a receive by its status
     * then gets.
     */
    private static void aProbeSeesOnlyWhatNoPostedReceiveTakes(Communicator world) {
        int tag = 5;
        if (world.rank() == 2) {
            byte[] first = new byte[8];
            Request posted = world.irecv(MemorySegment.ofArray(first), first.length, Datatype.BYTE, Communicator.ANY_SOURCE, tag);
            world.barrier();
            Status probed = world.probe(Communicator.ANY_SOURCE, tag);
            check(probed.source() == 0 && probed.byteCount() == 16, "the probe reports rank 0's second message (16 B), not the"
                    + " one the posted receive takes: " + probed);
            byte[] second = new byte[16];
            world.recv(second, probed.source(), tag);
            check(Arrays.equals(second, pattern(2, 16)), "the receive after the probe gets the second message");
            Status s = posted.await();
            check(s.byteCount() == 8 && Arrays.equals(first, pattern(1, 8)), "the posted receive gets the first message: " + s);
        } else {
            world.barrier();
            if (world.rank() == 0) {
                world.send(pattern(1, 8), 2, tag);
                world.send(pattern(2, 16), 2, tag);
            }
        }
        world.barrier();
    }

    /**
     * Rank 2 posts a wildcard receive, then blocks in a synchronous send to rank 0, which first
     * sends synchronously to rank 2: the program completes only if rank 2's pending receive
     * matches while it blocks in its own send (MPI's progress rule).
     */
    private static void aWildcardReceiveMatchesWhileItsRankBlocksInASynchronousSend(Communicator world) {
        int tag = 7;
        if (world.rank() == 2) {
            byte[] in = new byte[4];
            Request posted = world.irecv(MemorySegment.ofArray(in), in.length, Datatype.BYTE, Communicator.ANY_SOURCE, tag);
            world.ssend(MemorySegment.ofArray(pattern(3, 4)), 4, Datatype.BYTE, 0, tag + 1);
            check(posted.await().source() == 0 && Arrays.equals(in, pattern(4, 4)), "rank 2's wildcard receive gets rank 0's message");
        } else if (world.rank() == 0) {
            world.ssend(MemorySegment.ofArray(pattern(4, 4)), 4, Datatype.BYTE, 2, tag);
            byte[] in = new byte[4];
            world.recv(in, 2, tag + 1);
            check(Arrays.equals(in, pattern(3, 4)), "rank 0 gets rank 2's message");
        }
        world.barrier();
    }

    /** A non-blocking receive from another host, too small for its message: the message's first bytes and its length. */
    private static void aTruncatedReceiveFromAnotherHostKeepsItsLength(Communicator world) {
        int tag = 9;
        int size = 100;
        if (world.rank() == 3) {
            byte[] in = new byte[10];
            Request r = world.irecv(MemorySegment.ofArray(in), in.length, Datatype.BYTE, 1, tag);
            world.barrier();
            try {
                r.await();
                throw new AssertionError("no truncation of " + size + " bytes into " + in.length);
            } catch (TruncationException expected) {
                check(expected.messageBytes() == size, "the truncation names the message's length: " + expected.messageBytes());
                check(Arrays.equals(in, Arrays.copyOf(pattern(5, size), in.length)), "the message's first bytes");
            }
        } else {
            world.barrier();
            if (world.rank() == 1) {
                world.send(pattern(5, size), 3, tag);
            }
        }
        world.barrier();
    }
}
