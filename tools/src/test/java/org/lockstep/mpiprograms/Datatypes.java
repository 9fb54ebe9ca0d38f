package org.lockstep.mpiprograms;

import java.nio.ByteBuffer;

import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * Derived datatypes: contiguous, vector, hvector, indexed, hindexed, struct and resized; their
 * bounds in base elements; sends, receives, sendRecvReplace, buffered sends, pack and unpack,
 * collectives and reductions with them; commit and free.
 */
public final class Datatypes {
    private static final int N = 6; // matrices are N x N ints, row-major

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;

        bounds();

        // a column of a row-major matrix: vector(N, 1, N, INT)
        Datatype column = Datatype.createVector(N, 1, N, MPI.INT);
        column.commit();
        int[] matrix = matrix(rank);
        int[] received = new int[N * N];
        world.sendRecv(matrix, 1, column, next, 1, received, N, MPI.INT, prev, 1);
        for (int i = 0; i < N; i++) {
            Check.equal(prev * 1000 + i * N, received[i], "column 0 of rank " + prev + ", row " + i);
        }
        // a row received as a column
        int[] target = new int[N * N];
        Status status = world.sendRecv(matrix, N, MPI.INT, next, 2, target, 1, column, prev, 2);
        for (int i = 0; i < N; i++) {
            Check.equal(prev * 1000 + i, target[i * N], "row 0 of rank " + prev + " into column 0, element " + i);
            Check.equal(0, target[i * N + 1], "the gaps of a vector are untouched");
        }
        Check.equal(1, status.getCount(column), "count of one column");
        Check.equal(N, status.getElements(column), "basic elements of one column");
        Check.equal(N, status.getCount(MPI.INT), "the same message counted in ints");

        // hvector with the stride in bytes: every other int
        Datatype everyOther = Datatype.createHVector(3, 1, 8, MPI.INT);
        everyOther.commit();
        Check.equal(5, everyOther.getExtent(), "hvector extent in ints");
        Check.equal(3, everyOther.getSize(), "hvector size in ints");
        int[] odd = new int[6];
        world.sendRecv(new int[] {rank, -1, rank + 1, -1, rank + 2, -1}, 1, everyOther, next, 3, odd, 3, MPI.INT, prev, 3);
        Check.equal(new int[] {prev, prev + 1, prev + 2, 0, 0, 0}, odd, "hvector picks every other int");

        // indexed and hindexed: the lower triangle's first three rows
        Datatype triangle = Datatype.createIndexed(new int[] {1, 2, 3}, new int[] {0, N, 2 * N}, MPI.INT);
        triangle.commit();
        Datatype triangleBytes = Datatype.createHIndexed(new int[] {1, 2, 3}, new int[] {0, 4 * N, 8 * N}, MPI.INT);
        triangleBytes.commit();
        Check.equal(6, triangle.getSize(), "indexed size");
        Check.equal(2 * N + 3, triangle.getExtent(), "indexed extent");
        int[] packedTriangle = new int[6];
        world.sendRecv(matrix, 1, triangle, next, 4, packedTriangle, 6, MPI.INT, prev, 4);
        int base = prev * 1000;
        Check.equal(new int[] {base, base + N, base + N + 1, base + 2 * N, base + 2 * N + 1, base + 2 * N + 2},
                packedTriangle, "indexed picks the triangle");
        int[] spread = new int[N * N];
        // back to where the triangle came from, which unpacks its own triangle
        world.sendRecv(packedTriangle, 6, MPI.INT, prev, 5, spread, 1, triangleBytes, next, 5);
        for (int i : new int[] {0, N, N + 1, 2 * N, 2 * N + 1, 2 * N + 2}) {
            Check.equal(matrix[i], spread[i], "hindexed places element " + i);
        }
        Check.equal(0, spread[1], "hindexed leaves the gaps");

        struct(world, rank, next, prev);
        resized(world, rank, size);
        packing(world, column, rank, next, prev);
        buffered(world, column, rank, next, prev);
        collectives(world, column, rank, size);
        backwards(world, rank, next, prev);

        world.setErrhandler(MPI.ERRORS_RETURN);
        column.free();
        Check.that(column.isNull(), "a freed datatype is null");
        Check.fails(MPI.ERR_TYPE, "Comm.send", () -> world.send(matrix, 1, column, next, 9));
        Datatype uncommitted = Datatype.createContiguous(2, MPI.INT);
        Check.fails(MPI.ERR_TYPE, "commit", () -> world.send(matrix, 1, uncommitted, next, 9));
        everyOther.free();
        triangle.free();
        triangleBytes.free();
        Check.passed("datatypes");
        MPI.Finalize();
    }

    private static int[] matrix(int rank) {
        int[] m = new int[N * N];
        for (int i = 0; i < N * N; i++) {
            m[i] = rank * 1000 + i;
        }
        return m;
    }

    private static void bounds() throws MPIException {
        Check.equal(1, MPI.INT.getExtent(), "INT extent in ints");
        Check.equal(1, MPI.DOUBLE.getSize(), "DOUBLE size in doubles");
        Datatype four = Datatype.createContiguous(4, MPI.DOUBLE);
        Check.equal(4, four.getExtent(), "contiguous extent in doubles");
        Check.equal(0, four.getLb(), "contiguous lower bound");
        Datatype column = Datatype.createVector(3, 2, 5, MPI.INT);
        Check.equal(12, column.getExtent(), "vector extent: (3 - 1) * 5 + 2");
        Check.equal(6, column.getSize(), "vector size");
        Check.equal(0, column.getTrueLb(), "vector true lower bound");
        Check.equal(12, column.getTrueExtent(), "vector true extent");
        Datatype padded = Datatype.createResized(MPI.INT, 0, 12);
        Check.equal(3, padded.getExtent(), "resized extent: 12 bytes are 3 ints");
        Check.equal(1, padded.getSize(), "resized size");
        Check.equal(1, padded.getTrueExtent(), "resized true extent");
        Datatype copy = column.dup();
        Check.equal(12, copy.getExtent(), "dup keeps the extent");
        Check.fails(MPI.ERR_TYPE, "Datatype.free", () -> MPI.INT.free());
        Datatype ints = MPI.INT.clone();
        Check.equal(1, ints.getSize(), "a predefined type's duplicate has its size");
        ints.free(); // the duplicate is the program's to free, and MPI.INT stays
        Check.that(ints.isNull() && !MPI.INT.isNull(), "a freed duplicate of MPI.INT is null, MPI.INT is not");
        four.free();
        column.free();
        copy.free();
        padded.free();
    }

    /**
     * A negative stride from the middle of a buffer: vector(4, 1, -2, SHORT) from MPI.slice(buf, 16)
     * reads shorts 8, 6, 4, 2 of the whole buffer, before the slice's start, as an address in C would.
     */
    private static void backwards(Intracomm world, int rank, int next, int prev) throws MPIException {
        Datatype down = Datatype.createVector(4, 1, -2, MPI.SHORT);
        down.commit();
        Check.equal(-6, down.getLb(), "a negative stride's lower bound, in shorts");
        ByteBuffer whole = MPI.newByteBuffer(32);
        for (int i = 0; i < 16; i++) {
            whole.putShort(2 * i, (short) (100 * rank + i));
        }
        byte[] packed = new byte[8];
        world.pack(MPI.slice(whole, 16), 1, down, packed, 0);
        ByteBuffer p = ByteBuffer.wrap(packed).order(java.nio.ByteOrder.nativeOrder());
        for (int k = 0; k < 4; k++) {
            Check.equal(100 * rank + 8 - 2 * k, p.getShort(2 * k), "packed short " + k + " runs back from the slice");
        }
        ByteBuffer into = MPI.newByteBuffer(32);
        world.unpack(packed, 0, MPI.slice(into, 16), 1, down);
        Check.equal(100 * rank + 2, into.getShort(4), "unpacked before the slice's start");
        Check.equal(0, into.getShort(6), "the stride's gap is untouched");
        ByteBuffer got = MPI.newByteBuffer(32);
        world.sendRecv(MPI.slice(whole, 16), 1, down, next, 11, got, 4, MPI.SHORT, prev, 11);
        Check.equal(100 * prev + 8, got.getShort(0), "a send from before the slice's start");
        down.free();
    }

    /** A record of an int and a double in a direct byte buffer; a struct's base type is bytes. */
    private static void struct(Intracomm world, int rank, int next, int prev) throws MPIException {
        Datatype record = Datatype.createStruct(new int[] {1, 1}, new int[] {0, 8}, new Datatype[] {MPI.INT, MPI.DOUBLE});
        record.commit();
        Check.equal(16, record.getExtent(), "struct extent in bytes");
        Check.equal(12, record.getSize(), "struct size in bytes");
        ByteBuffer out = MPI.newByteBuffer(32);
        for (int k = 0; k < 2; k++) {
            out.putInt(16 * k, rank * 10 + k);
            out.putInt(16 * k + 4, -7); // padding: not sent
            out.putDouble(16 * k + 8, rank + k / 2.0);
        }
        ByteBuffer in = MPI.newByteBuffer(32);
        Status s = world.sendRecv(out, 2, record, next, 6, in, 2, record, prev, 6);
        Check.equal(2, s.getCount(record), "two records");
        Check.equal(4, s.getElements(record), "four basic elements in two records");
        for (int k = 0; k < 2; k++) {
            Check.equal(prev * 10 + k, in.getInt(16 * k), "record " + k + "'s int");
            Check.equal(0, in.getInt(16 * k + 4), "record " + k + "'s padding is untouched");
            Check.equal(prev + k / 2.0, in.getDouble(16 * k + 8), "record " + k + "'s double");
        }
        // a record (12 bytes of data), an int and half a double: the bytes end inside a basic element
        Status partial = world.sendRecv(out, 12 + 4 + 4, MPI.BYTE, next, 7, in, 2, record, prev, 7);
        Check.equal(MPI.UNDEFINED, partial.getElements(record), "elements of bytes ending inside a double");
        Check.equal(MPI.UNDEFINED, partial.getCount(record), "count of one and a half records");

        // a Struct field of a derived type takes its extent per element, gaps included, as the bindings lay it out
        Records records = new Records(record);
        Check.equal(32, records.after, "the field after two records of extent 16 (size 12)");
        Check.equal(40, records.getExtent(), "two records and an int, padded to 8");
        ByteBuffer sent = MPI.newByteBuffer(40).putInt(32, rank + 5);
        ByteBuffer got = MPI.newByteBuffer(40);
        world.sendRecv(sent, 1, records.getType(), rank, 8, got, 1, records.getType(), rank, 8); // committed as handed out
        Check.equal(rank + 5, got.getInt(32), "the int after the records, sent in a Struct's type");
        record.free();
    }

    private static final class Records extends mpi.Struct {
        final int after;

        Records(Datatype record) throws MPIException {
            addData(record, 2);
            after = addInt();
        }

        @Override
        protected Data newData() {
            return new Data() { };
        }
    }

    /** resized pads an element: a gather of one int per rank into every third int. */
    private static void resized(Intracomm world, int rank, int size) throws MPIException {
        Datatype spaced = Datatype.createResized(MPI.INT, 0, 12);
        spaced.commit();
        int[] all = new int[3 * size];
        world.allGather(new int[] {rank + 1}, 1, MPI.INT, all, 1, spaced);
        for (int r = 0; r < size; r++) {
            Check.equal(r + 1, all[3 * r], "resized places rank " + r + "'s int");
            Check.equal(0, all[3 * r + 1], "resized leaves the padding");
        }
        spaced.free();
    }

    private static void packing(Intracomm world, Datatype column, int rank, int next, int prev) throws MPIException {
        int[] matrix = matrix(rank);
        Check.equal(4 * N + 4, world.packSize(1, column) + world.packSize(1, MPI.INT), "pack size of a column and an int");
        byte[] packed = new byte[4 * N + 4];
        int position = world.pack(matrix, 1, column, packed, 0);
        position = world.pack(new int[] {rank}, 1, MPI.INT, packed, position);
        Check.equal(packed.length, position, "pack position");
        byte[] incoming = new byte[packed.length];
        world.sendRecv(packed, packed.length, MPI.PACKED, next, 7, incoming, packed.length, MPI.PACKED, prev, 7);
        int[] unpacked = new int[N * N];
        int[] who = new int[1];
        position = world.unpack(incoming, 0, unpacked, 1, column);
        world.unpack(incoming, position, who, 1, MPI.INT);
        Check.equal(prev, who[0], "the int after the column");
        for (int i = 0; i < N; i++) {
            Check.equal(prev * 1000 + i * N, unpacked[i * N], "unpacked column, row " + i);
        }
        // sendRecvReplace with a column: the column is replaced, the rest of the matrix is kept
        world.sendRecvReplace(matrix, 1, column, next, 8, prev, 8);
        for (int i = 0; i < N; i++) {
            Check.equal(prev * 1000 + i * N, matrix[i * N], "replaced column, row " + i);
            Check.equal(rank * 1000 + i * N + 1, matrix[i * N + 1], "kept column 1, row " + i);
        }
    }

    private static void buffered(Intracomm world, Datatype column, int rank, int next, int prev) throws MPIException {
        int[] matrix = matrix(rank);
        MPI.attachBuffer(new byte[1024]);
        world.bSend(matrix, 1, column, next, 10);
        java.util.Arrays.fill(matrix, -1); // a buffered send copied the column already
        int[] column0 = new int[N];
        world.recv(column0, N, MPI.INT, prev, 10);
        MPI.detachBuffer();
        for (int i = 0; i < N; i++) {
            Check.equal(prev * 1000 + i * N, column0[i], "buffered column, row " + i);
        }
    }

    /** Columns in collectives: an alltoall that transposes, and an allreduce over a column. */
    private static void collectives(Intracomm world, Datatype column, int rank, int size) throws MPIException {
        // each rank holds a size x size block row-major; sending columns and receiving rows transposes it
        Datatype blockColumn = Datatype.createResized(Datatype.createVector(size, 1, size, MPI.INT), 0, 4);
        blockColumn.commit();
        int[] mine = new int[size * size];
        for (int i = 0; i < size * size; i++) {
            mine[i] = rank * 100 + i;
        }
        int[] rows = new int[size * size];
        world.allToAll(mine, 1, blockColumn, rows, size, MPI.INT);
        // row r of the result came from rank r: its column `rank`
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < size; i++) {
                Check.equal(r * 100 + i * size + rank, rows[r * size + i], "transposed block from " + r + ", element " + i);
            }
        }
        blockColumn.free();

        int[] matrix = matrix(rank);
        int[] sums = new int[N * N];
        world.allReduce(matrix, sums, 1, column, MPI.SUM);
        int rankSum = size * (size - 1) / 2;
        for (int i = 0; i < N; i++) {
            Check.equal(rankSum * 1000L + (long) size * i * N, sums[i * N], "allreduce over a column, row " + i);
            Check.equal(0, sums[i * N + 1], "allreduce leaves the rest");
        }
        int[] bcastMatrix = rank == 0 ? matrix(42) : new int[N * N];
        world.bcast(bcastMatrix, 1, column, 0);
        Check.equal(42000 + N, bcastMatrix[N], "bcast of a column, row 1");
        Check.equal(rank == 0 ? 42001 : 0, bcastMatrix[1], "bcast leaves the rest");
    }
}
