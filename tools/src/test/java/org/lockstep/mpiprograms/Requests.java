package org.lockstep.mpiprograms;

import java.nio.IntBuffer;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/** Multiple completion (any, some, all; wait and test), null requests, persistent requests, cancel, probe. */
public final class Requests {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Comm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();

        // rank 0 receives one message from every other rank, completing them with waitAny
        if (rank == 0) {
            Request[] requests = new Request[size - 1];
            IntBuffer[] values = new IntBuffer[size - 1];
            for (int r = 1; r < size; r++) {
                values[r - 1] = MPI.newIntBuffer(1);
                requests[r - 1] = world.iRecv(values[r - 1], 1, MPI.INT, r, 1);
            }
            boolean[] seen = new boolean[size];
            for (int done = 0; done < size - 1; done++) {
                Status s = Request.waitAnyStatus(requests);
                int i = s.getIndex();
                Check.equal(i + 1, s.getSource(), "the index names the request of that source");
                Check.equal(100 + i + 1, values[i].get(0), "value from rank " + (i + 1));
                Check.that(!seen[i + 1], "each request completes once");
                seen[i + 1] = true;
                Check.that(requests[i].isNull(), "a completed request is null");
            }
            Check.equal(MPI.UNDEFINED, Request.waitAny(requests), "waitAny over inactive requests");
            Check.that(Request.waitSome(requests) == null, "waitSome over inactive requests");
        } else {
            world.send(new int[] {100 + rank}, 1, MPI.INT, 0, 1);
        }

        // ring exchange completed by waitSome, testAll and waitAll
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        IntBuffer in = MPI.newIntBuffer(2);
        Request[] pair = {world.iRecv(in, 2, MPI.INT, prev, 2), world.iSend(intBuffer(rank, -rank), 2, MPI.INT, next, 2)};
        int completed = 0;
        while (completed < 2) {
            int[] done = Request.waitSome(pair);
            completed += done.length;
        }
        Check.that(Request.testAll(pair), "testAll over completed requests");
        Check.that(in.get(0) == prev && in.get(1) == -prev, "ring values");
        Request[] again = {world.iRecv(in, 2, MPI.INT, prev, 3), world.iSend(intBuffer(rank + 1, 0), 2, MPI.INT, next, 3)};
        Status[] statuses = Request.waitAllStatus(again);
        Check.equal(prev, statuses[0].getSource(), "waitAll status of the receive");
        Check.equal(2, statuses[0].getCount(MPI.INT), "waitAll count");
        Check.equal(prev + 1, in.get(0), "second ring value");
        Check.that(MPI.REQUEST_NULL.isNull(), "REQUEST_NULL is null");
        Status empty = MPI.REQUEST_NULL.waitStatus();
        Check.equal(MPI.ANY_SOURCE, empty.getSource(), "the status of a null request is empty");

        // persistent requests, started five times
        IntBuffer sendValue = MPI.newIntBuffer(1);
        IntBuffer recvValue = MPI.newIntBuffer(1);
        Prequest psend = world.sendInit(sendValue, 1, MPI.INT, next, 4);
        Prequest precv = world.recvInit(recvValue, 1, MPI.INT, prev, 4);
        for (int round = 0; round < 5; round++) {
            sendValue.put(0, rank * 1000 + round);
            Prequest.startAll(new Prequest[] {precv, psend});
            Request.waitAll(new Request[] {precv, psend});
            Check.equal(prev * 1000 + round, recvValue.get(0), "persistent round " + round);
            Check.that(!precv.isNull(), "a completed persistent request stays usable");
        }
        psend.free();
        precv.free();
        Check.that(psend.isNull(), "a freed persistent request is null");

        // cancel a receive nobody will match
        Request lonely = world.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, MPI.ANY_SOURCE, 999);
        lonely.cancel();
        Status cancelled = lonely.waitStatus();
        Check.that(cancelled.isCancelled(), "a cancelled receive says so");

        // probe and iProbe see the message before it is received
        world.barrier();
        if (rank == 0) {
            world.send(new double[] {1, 2, 3}, 3, MPI.DOUBLE, size - 1, 5);
        }
        if (rank == size - 1) {
            Status probed = world.probe(MPI.ANY_SOURCE, 5);
            Check.equal(0, probed.getSource(), "probe source");
            Check.equal(3, probed.getCount(MPI.DOUBLE), "probe count");
            Check.that(world.iProbe(0, 5) != null, "iProbe finds the probed message");
            double[] values = new double[probed.getCount(MPI.DOUBLE)];
            world.recv(values, values.length, MPI.DOUBLE, 0, 5);
            Check.equal(3.0, values[2], "probed message");
            Check.that(world.iProbe(0, 5) == null, "nothing left to probe");
        }
        // testAny polls until the message arrives
        if (rank == 1) {
            Request[] one = {world.iRecv(MPI.newIntBuffer(1), 1, MPI.INT, 0, 6)};
            world.send(new int[] {0}, 1, MPI.INT, 0, 7);
            int index;
            do {
                index = Request.testAny(one);
            } while (index == MPI.UNDEFINED);
            Check.equal(0, index, "testAny index");
        } else if (rank == 0) {
            world.recv(new int[1], 1, MPI.INT, 1, 7);
            world.send(new int[] {1}, 1, MPI.INT, 1, 6);
        }
        Check.passed("requests");
        MPI.Finalize();
    }

    private static IntBuffer intBuffer(int... values) {
        IntBuffer b = MPI.newIntBuffer(values.length);
        b.put(values).clear();
        return b;
    }
}
