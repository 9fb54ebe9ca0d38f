package org.lockstep.mpiprograms;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * Blocking, synchronous, ready, buffered and non-blocking sends; every array type; empty messages
 * without a buffer; buffers, slices and offsets; wildcards; PROC_NULL.
 */
public final class PointToPoint {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Comm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;

        // every primitive array type around the ring, with a tag per type
        int[] ints = {rank, rank * 10, rank * 100};
        int[] gotInts = new int[3];
        Status s = world.sendRecv(ints, 3, MPI.INT, next, 1, gotInts, 3, MPI.INT, prev, 1);
        Check.equal(new int[] {prev, prev * 10, prev * 100}, gotInts, "ints from the previous rank");
        Check.equal(prev, s.getSource(), "status source");
        Check.equal(1, s.getTag(), "status tag");
        Check.equal(3, s.getCount(MPI.INT), "status count");
        double[] doubles = {rank + 0.5};
        double[] gotDouble = new double[1];
        world.sendRecv(doubles, 1, MPI.DOUBLE, next, 2, gotDouble, 1, MPI.DOUBLE, prev, 2);
        Check.equal(prev + 0.5, gotDouble[0], "double");
        char[] chars = ("r" + rank).toCharArray();
        char[] gotChars = new char[chars.length];
        world.sendRecv(chars, chars.length, MPI.CHAR, next, 3, gotChars, gotChars.length, MPI.CHAR, prev, 3);
        Check.that(new String(gotChars).equals("r" + prev), "chars: " + new String(gotChars));
        boolean[] flags = {rank % 2 == 0, true, false};
        boolean[] gotFlags = new boolean[3];
        world.sendRecv(flags, 3, MPI.BOOLEAN, next, 4, gotFlags, 3, MPI.BOOLEAN, prev, 4);
        Check.that(gotFlags[0] == (prev % 2 == 0) && gotFlags[1] && !gotFlags[2], "booleans");
        long[] longs = {1L << 40 | rank};
        short[] shorts = {(short) -rank};
        float[] floats = {rank / 4f};
        byte[] bytes = {(byte) rank, -1};
        long[] gotLong = new long[1];
        short[] gotShort = new short[1];
        float[] gotFloat = new float[1];
        byte[] gotBytes = new byte[2];
        world.sendRecv(longs, 1, MPI.LONG, next, 5, gotLong, 1, MPI.LONG, prev, 5);
        world.sendRecv(shorts, 1, MPI.SHORT, next, 6, gotShort, 1, MPI.SHORT, prev, 6);
        world.sendRecv(floats, 1, MPI.FLOAT, next, 7, gotFloat, 1, MPI.FLOAT, prev, 7);
        world.sendRecv(bytes, 2, MPI.BYTE, next, 8, gotBytes, 2, MPI.BYTE, prev, 8);
        Check.equal(1L << 40 | prev, gotLong[0], "long");
        Check.equal(-prev, gotShort[0], "short");
        Check.equal(prev / 4f, gotFloat[0], "float");
        Check.that(gotBytes[0] == (byte) prev && gotBytes[1] == -1, "bytes");

        // an empty message may name no buffer at all (null, count 0), blocking and not
        if (size > 1 && rank == 0) {
            world.send(null, 0, MPI.BYTE, 1, 9);
            world.sSend(null, 0, MPI.INT, 1, 9);
        } else if (size > 1 && rank == 1) {
            Check.equal(0, world.recv(null, 0, MPI.BYTE, 0, 9).getCount(MPI.BYTE), "an empty message into no buffer");
            Check.equal(0, world.recv(null, 0, MPI.INT, 0, 9).getCount(MPI.INT), "a second one");
        }
        Status empty = world.sendRecv(null, 0, MPI.INT, next, 10, null, 0, MPI.INT, prev, 10);
        Check.equal(0, empty.getCount(MPI.INT), "sendRecv of empty messages without buffers");

        // blocking modes between rank 0 and rank 1: standard, synchronous, ready, buffered
        if (rank == 0) {
            world.send(new int[] {11}, 1, MPI.INT, 1, 20);
            world.sSend(new int[] {12}, 1, MPI.INT, 1, 21);
            world.recv(new int[1], 1, MPI.INT, 1, 22); // rank 1 has posted its receive for the ready send
            world.rSend(new int[] {13}, 1, MPI.INT, 1, 23);
            MPI.attachBuffer(new byte[4 * 1024]);
            world.bSend(new int[] {14, 15}, 2, MPI.INT, 1, 24);
            byte[] detached = MPI.detachBuffer();
            Check.equal(4 * 1024, detached.length, "the detached buffer is the attached one");
        } else if (rank == 1) {
            int[] v = new int[2];
            world.recv(v, 1, MPI.INT, 0, 20);
            Check.equal(11, v[0], "standard send");
            world.recv(v, 1, MPI.INT, 0, 21);
            Check.equal(12, v[0], "synchronous send");
            IntBuffer readyValue = MPI.newIntBuffer(1);
            Request ready = world.iRecv(readyValue, 1, MPI.INT, 0, 23);
            world.send(new int[] {0}, 1, MPI.INT, 0, 22);
            ready.waitFor();
            world.recv(v, 2, MPI.INT, 0, 24);
            Check.that(v[0] == 14 && v[1] == 15, "buffered send");
            Check.that(ready.isNull(), "a completed request is null");
            Check.equal(13, readyValue.get(0), "ready send");
        }

        // non-blocking with direct buffers, MPI.slice, wildcards
        IntBuffer out = MPI.newIntBuffer(8);
        IntBuffer in = MPI.newIntBuffer(8);
        for (int i = 0; i < 8; i++) {
            out.put(i, rank * 8 + i);
            in.put(i, -1);
        }
        Request recv = world.iRecv(MPI.slice(in, 4), 4, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
        Request send = world.iSend(MPI.slice(out, 2), 4, MPI.INT, next, 30 + rank);
        Status got = recv.waitStatus();
        send.waitFor();
        Check.equal(prev, got.getSource(), "wildcard source");
        Check.equal(30 + prev, got.getTag(), "wildcard tag");
        for (int i = 0; i < 4; i++) {
            Check.equal(-1, in.get(i), "before the slice");
            Check.equal(prev * 8 + 2 + i, in.get(4 + i), "in the slice");
        }

        // heap buffers: a slice of an array starts at its array offset
        double[] backing = new double[6];
        DoubleBuffer window = DoubleBuffer.wrap(backing, 2, 4).slice();
        world.sendRecv(new double[] {rank, rank + 1}, 2, MPI.DOUBLE, next, 40, window, 2, MPI.DOUBLE, prev, 40);
        Check.that(backing[0] == 0 && backing[2] == prev && backing[3] == prev + 1, "heap buffer slice");

        // a large message, direct char buffers (as in the IBM suite's send test)
        int large = 1 << 18;
        CharBuffer big = MPI.newCharBuffer(large);
        CharBuffer bigIn = MPI.newCharBuffer(large);
        for (int i = 0; i < large; i++) {
            big.put(i, (char) (rank + i));
        }
        Request r1 = world.iRecv(bigIn, large, MPI.CHAR, prev, 50);
        Request r2 = world.isSend(big, large, MPI.CHAR, next, 50);
        Request.waitAll(new Request[] {r1, r2});
        for (int i = 0; i < large; i += 4099) {
            Check.equal((char) (prev + i), bigIn.get(i), "large message element " + i);
        }

        // MPI.PROC_NULL: sends vanish, receives complete at once and leave the buffer alone
        int[] untouched = {7};
        world.send(new int[] {1}, 1, MPI.INT, MPI.PROC_NULL, 60);
        Status nothing = world.recv(untouched, 1, MPI.INT, MPI.PROC_NULL, 60);
        Check.equal(MPI.PROC_NULL, nothing.getSource(), "source of a receive from PROC_NULL");
        Check.equal(7, untouched[0], "a receive from PROC_NULL leaves the buffer");

        // sendRecvReplace
        ByteBuffer replace = MPI.newByteBuffer(4);
        replace.putInt(0, rank);
        world.sendRecvReplace(replace, 4, MPI.BYTE, next, 70, prev, 70);
        Check.equal(prev, replace.getInt(0), "sendRecvReplace");

        Check.passed("point-to-point");
        MPI.Finalize();
    }
}
