package org.lockstep.mpiprograms;

import mpi.Comm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The name service: rank 0 opens a port and publishes it, every other rank looks it up after a
 * barrier and connects to it in turn; then rank 0 unpublishes it, after which a lookup fails with
 * MPI.ERR_NAME; unpublishing an unknown name fails with MPI.ERR_SERVICE, publishing a name twice
 * too.
 */
public final class NameService {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        String service = "lockstep-test-service";
        String port = null;
        if (rank == 0) {
            port = Intracomm.openPort();
            Intracomm.publishName(service, port);
            String again = port;
            Check.fails(MPI.ERR_SERVICE, service, () -> Intracomm.publishName(service, again));
        }
        world.barrier();
        String found = rank == 0 ? port : Intracomm.lookupName(service);
        Check.that(found.startsWith("lockstep-port:0:"), "lookupName finds rank 0's port: " + found);
        for (int turn = 1; turn < size; turn++) { // one client at a time
            if (rank == 0) {
                Comm c = MPI.COMM_SELF.accept(port, 0);
                int[] got = new int[1];
                c.recv(got, 1, MPI.INT, 0, 5);
                Check.equal(turn, got[0], "the client of turn " + turn + " sent its rank");
                c.disconnect();
            } else if (rank == turn) {
                Comm c = MPI.COMM_SELF.connect(found, 0);
                c.send(new int[] {rank}, 1, MPI.INT, 0, 5);
                c.disconnect();
            }
            world.barrier();
        }
        if (rank == 0) {
            Intracomm.unpublishName(service, port);
            Intracomm.closePort(port);
            Check.fails(MPI.ERR_SERVICE, "other", () -> Intracomm.unpublishName("other", "lockstep-port:0:1"));
        }
        world.barrier();
        if (rank != 0) {
            Check.fails(MPI.ERR_NAME, service, () -> Intracomm.lookupName(service));
        }
        Check.passed("name service");
        MPI.Finalize();
    }
}
