package org.lockstep.mpiprograms;

import java.nio.IntBuffer;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Message;
import mpi.Request;
import mpi.Status;

/**
 * Matched probes (Message): mProbe then mRecv sized by the probed status, imProbe polling then
 * imRecv, a probed message that no other receive can take, PROC_NULL, and a second receive of
 * one message refused.
 */
public final class MatchedProbe {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Comm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();

        // every rank sends rank 0 a message of rank + 1 ints; rank 0 sizes each receive by the probe
        if (rank == 0) {
            for (int k = 1; k < size; k++) {
                Message message = new Message();
                Check.that(message.isNull(), "a new message handle is null");
                Status probed = message.mProbe(MPI.ANY_SOURCE, 1, world);
                Check.that(!message.isNull() && !message.isNoProc(), "a probed message is held");
                int source = probed.getSource();
                int count = probed.getCount(MPI.INT);
                Check.equal(source + 1, count, "the probe's count from rank " + source);
                int[] values = new int[count];
                Status received = message.mRecv(values, count, MPI.INT);
                Check.equal(source, received.getSource(), "mRecv status source");
                Check.equal(count, received.getCount(MPI.INT), "mRecv status count");
                for (int v : values) {
                    Check.equal(source * 10, v, "value from rank " + source);
                }
                Check.that(message.isNull(), "a received message leaves the handle null");
            }
        } else {
            int[] values = new int[rank + 1];
            java.util.Arrays.fill(values, rank * 10);
            world.send(values, rank + 1, MPI.INT, 0, 1);
        }

        // a probed message is out of matching: a receive posted after the probe takes the next message
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        world.send(new int[] {1}, 1, MPI.INT, next, 2);
        world.send(new int[] {2}, 1, MPI.INT, next, 2);
        Message first = new Message();
        Status s;
        do {
            s = first.imProbe(prev, 2, world);
        } while (s == null);
        Check.that(!first.isNull(), "imProbe holds the message it found");
        int[] second = new int[1];
        world.recv(second, 1, MPI.INT, prev, 2);
        Check.equal(2, second[0], "the probed message is not matched by another receive");
        IntBuffer firstValue = MPI.newIntBuffer(1);
        Request r = first.imRecv(firstValue, 1, MPI.INT);
        Status done = r.waitStatus();
        Check.equal(1, firstValue.get(0), "imRecv delivers the probed message");
        Check.equal(prev, done.getSource(), "imRecv status");
        Check.that(first.isNull(), "imRecv leaves the handle null");

        // nothing to probe: imProbe says null and holds nothing
        Message none = new Message();
        Check.that(none.imProbe(prev, 99, world) == null, "imProbe with no message");
        Check.that(none.isNull(), "an unsuccessful imProbe holds nothing");

        // PROC_NULL: a no-proc message whose receive completes at once
        Message noProc = new Message();
        Status p = noProc.mProbe(MPI.PROC_NULL, 0, world);
        Check.equal(MPI.PROC_NULL, p.getSource(), "a probe of PROC_NULL");
        Check.that(noProc.isNoProc(), "the message of PROC_NULL");
        Status empty = noProc.mRecv(new int[1], 1, MPI.INT);
        Check.equal(MPI.PROC_NULL, empty.getSource(), "receiving the no-proc message");
        Check.equal(0, empty.getCount(MPI.INT), "the no-proc message is empty");

        // a message is received once
        world.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_REQUEST, "Message.mRecv", () -> noProc.mRecv(new int[1], 1, MPI.INT));
        Check.passed("matched probe");
        MPI.Finalize();
    }
}
