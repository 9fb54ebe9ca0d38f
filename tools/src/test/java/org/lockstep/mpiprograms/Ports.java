package org.lockstep.mpiprograms;

import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Ports between two halves of the world: the lower half's rank 0 opens a port and hands its name
 * to the upper half's rank 0; the lower half accepts, the upper half connects, twice on the same
 * port; the intercommunicators carry an allReduce and a message between the roots; closePort, and
 * names that are not ports, are checked, and a port refused at a group's root (under ERRORS_RETURN)
 * fails the call at every rank of that group.
 */
public final class Ports {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int lower = size / 2;
        boolean accepting = rank < lower;
        Intracomm half = world.split(accepting ? 0 : 1, rank);
        int remoteSize = accepting ? size - lower : lower;

        String port = null;
        if (rank == 0) {
            port = Intracomm.openPort();
            char[] name = port.toCharArray();
            world.send(new int[] {name.length}, 1, MPI.INT, lower, 5);
            world.send(name, name.length, MPI.CHAR, lower, 6);
        } else if (rank == lower) {
            int[] length = new int[1];
            world.recv(length, 1, MPI.INT, 0, 5);
            char[] name = new char[length[0]];
            world.recv(name, name.length, MPI.CHAR, 0, 6);
            port = new String(name);
        }

        for (int round = 1; round <= 2; round++) {
            Intercomm inter = accepting ? half.accept(port, 0) : half.connect(port, 0);
            Check.that(inter.isInter(), "accept and connect make an intercommunicator");
            Check.equal(half.getRank(), inter.getRank(), "rank in the local group");
            Check.equal(remoteSize, inter.getRemoteSize(), "the other half's size");
            int[] sum = new int[1];
            inter.allReduce(new int[] {rank * round}, sum, 1, MPI.INT, MPI.SUM);
            int expected = 0;
            for (int r = accepting ? lower : 0; r < (accepting ? size : lower); r++) {
                expected += r * round;
            }
            Check.equal(expected, sum[0], "allReduce over the port's intercommunicator, round " + round);
            if (half.getRank() == 0) {
                int[] got = new int[1];
                inter.sendRecv(new int[] {100 * round + rank}, 1, MPI.INT, 0, round, got, 1, MPI.INT, 0, round);
                Check.equal(100 * round + (accepting ? lower : 0), got[0], "the other root's message, round " + round);
            }
            inter.disconnect();
        }

        MPI.COMM_SELF.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_PORT, "is not a port", () -> Intracomm.closePort("tcp://somewhere:1234"));
        Check.fails(MPI.ERR_PORT, "is not a port", () -> MPI.COMM_SELF.connect("lockstep-port:" + size + ":1", 0));
        if (rank == lower) {
            String others = port;
            Check.fails(MPI.ERR_PORT, "was opened by rank 0", () -> MPI.COMM_SELF.accept(others, 0));
        }
        refusedAtTheRoot(half, accepting, size);
        if (rank == 0) {
            Intracomm.closePort(port);
        }
        half.free();
        Check.passed("ports");
        MPI.Finalize();
    }

    /**
     * Each half's root names a port it cannot use (the lower half's: a port opened by another rank;
     * the upper half's: not a port): the root fails with ERR_PORT naming why, its group's other
     * ranks with ERR_PORT naming the root, and none waits for the other half.
     */
    private static void refusedAtTheRoot(Intracomm half, boolean accepting, int size) throws MPIException {
        half.setErrhandler(MPI.ERRORS_RETURN);
        boolean root = half.getRank() == 0;
        String why = !root ? "refused the port" : accepting ? "was opened by rank" : "is not a port";
        String port = !root ? null : accepting ? "lockstep-port:" + (size - 1) + ":1" : "tcp://somewhere:1234";
        if (accepting) {
            Check.fails(MPI.ERR_PORT, why, () -> half.accept(port, 0));
        } else {
            Check.fails(MPI.ERR_PORT, why, () -> half.connect(port, 0));
        }
        half.barrier();
    }
}
