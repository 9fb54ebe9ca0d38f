package org.lockstep.mpiprograms;

import java.io.IOException;
import java.nio.IntBuffer;
import java.nio.file.Path;

import mpi.Datatype;
import mpi.File;
import mpi.FileView;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * MPI-IO (mpi.File) in a directory of the job's own: open and its errors (MODE_EXCL, a missing
 * file, a bad access mode), a strided view that interleaves the ranks' blocks, explicit offsets
 * (blocking, collective, non-blocking, split), the individual pointer (seek, getPosition,
 * getByteOffset), the shared pointer (writeShared, readOrdered, writeOrdered, seekShared), sizes,
 * sync, atomicity, MODE_DELETE_ON_CLOSE and delete; every result checked against what the
 * ranks wrote.
 */
public final class Files {
    private static final int BLOCK = 3;
    private static final int ROUNDS = 4;

    public static void main(String[] args) throws MPIException, IOException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        String dir = sharedDirectory(world);
        String name = dir + "/interleaved";

        File f = new File(world, name, MPI.MODE_RDWR | MPI.MODE_CREATE | MPI.MODE_EXCL);
        Check.equal(MPI.MODE_RDWR | MPI.MODE_CREATE | MPI.MODE_EXCL, f.getAMode(), "getAMode");
        Check.equal(size, f.getGroup().getSize(), "the file's group");
        Check.equal(0, f.getSize(), "a new file is empty");
        // rank r's blocks of BLOCK ints are every size-th block: a vector filetype, resized to tile
        Datatype blocks = Datatype.createVector(1, BLOCK, BLOCK * size, MPI.INT);
        Datatype tile = Datatype.createResized(blocks, 0, BLOCK * size * 4);
        tile.commit();
        f.setView((long) rank * BLOCK * 4, MPI.INT, tile, "native");
        FileView view = f.getView();
        Check.equal(rank * BLOCK * 4, view.getDisp(), "getView's displacement");
        int[] mine = new int[BLOCK * ROUNDS];
        for (int i = 0; i < mine.length; i++) {
            mine[i] = 1000 * rank + i;
        }
        Status written = f.writeAtAll(0, mine, mine.length, MPI.INT);
        Check.equal(mine.length, written.getCount(MPI.INT), "writeAtAll's count");
        Check.equal(size * BLOCK * ROUNDS * 4, f.getSize(), "the file holds every rank's blocks");
        Check.equal(rank * BLOCK * 4 + BLOCK * size * 4, f.getByteOffset(BLOCK), "getByteOffset of the second block");
        f.sync();

        // the whole file through the default view: block b is rank b % size's block b / size
        f.setView(0, MPI.INT, MPI.INT, "native");
        int[] all = new int[size * BLOCK * ROUNDS];
        Check.equal(all.length, f.readAtAll(0, all, all.length, MPI.INT).getCount(MPI.INT), "readAtAll's count");
        for (int i = 0; i < all.length; i++) {
            int block = i / BLOCK;
            Check.equal(1000 * (block % size) + (block / size) * BLOCK + i % BLOCK, all[i], "int " + i + " of the file");
        }
        int[] past = new int[4];
        Check.equal(0, f.readAt(all.length, past, past.length, MPI.INT).getCount(MPI.INT), "a read past the end reads nothing");

        // the individual pointer: seek, read, getPosition
        f.seek(2, MPI.SEEK_SET);
        int[] two = new int[2];
        f.read(two, 2, MPI.INT);
        Check.equal(all[2], two[0], "read after seek");
        Check.equal(4, f.getPosition(), "the pointer moved by what was read");
        f.seek(-1, MPI.SEEK_END);
        Check.equal(all.length - 1, f.getPosition(), "SEEK_END");
        f.seek(0, MPI.SEEK_SET);
        world.barrier();

        // non-blocking and split collective accesses on a file of rank-ordered records
        File g = new File(world, dir + "/records", MPI.MODE_RDWR | MPI.MODE_CREATE);
        IntBuffer record = MPI.newIntBuffer(2);
        record.put(0, rank).put(1, -rank);
        Request w = g.iWriteAt(2L * rank * 4, record, 2, MPI.INT); // the default view counts bytes
        w.waitFor();
        world.barrier();
        IntBuffer back = MPI.newIntBuffer(2);
        Request r = g.iReadAtAll(2L * ((rank + 1) % size) * 4, back, 2, MPI.INT);
        Status got = r.waitStatus();
        Check.equal(2, got.getCount(MPI.INT), "iReadAtAll's count");
        Check.equal((rank + 1) % size, back.get(0), "iReadAtAll reads the next rank's record");
        int[] split = new int[2];
        g.readAtAllBegin(0, split, 2, MPI.INT);
        Check.equal(2, g.readAtAllEnd(split).getCount(MPI.INT), "readAtAllEnd's count");
        Check.equal(0, split[0], "the split read");
        Check.fails(MPI.ERR_IO, "File.readAtAllEnd", () -> g.readAtAllEnd(split));

        // the shared pointer: every rank appends one int; the file then holds each rank's once
        g.setView(0, MPI.INT, MPI.INT, "native");
        g.seekShared(2L * size, MPI.SEEK_SET);
        g.writeShared(new int[] {100 + rank}, 1, MPI.INT);
        world.barrier();
        Check.equal(3L * size, g.getPositionShared(), "the shared pointer moved once per rank");
        int[] appended = new int[size];
        g.readAt(2L * size, appended, size, MPI.INT);
        java.util.Arrays.sort(appended);
        for (int i = 0; i < size; i++) {
            Check.equal(100 + i, appended[i], "writeShared's int of rank " + i);
        }
        // ordered: rank r's two ints follow the lower ranks' ones
        g.writeOrdered(new int[] {7 * rank, 7 * rank + 1}, 2, MPI.INT);
        Check.equal(5L * size, g.getPositionShared(), "writeOrdered moved the shared pointer by everything");
        g.seekShared(3L * size, MPI.SEEK_SET);
        int[] ordered = new int[2];
        g.readOrdered(ordered, 2, MPI.INT);
        Check.equal(7 * rank, ordered[0], "readOrdered reads this rank's place");
        Check.equal(7 * rank + 1, ordered[1], "readOrdered reads this rank's place");

        // sizes, atomicity, errors
        g.setAtomicity(true);
        Check.that(g.getAtomicity(), "atomic mode");
        g.writeAt(0, new int[] {rank}, 1, MPI.INT);
        g.setAtomicity(false);
        g.preallocate(4096);
        long grown = g.getSize();
        Check.that(grown >= 4096, "preallocate grows the file: " + grown);
        world.barrier(); // a collective call need not wait at entry: no rank truncates before every rank has looked
        g.setSize(8);
        Check.equal(8, g.getSize(), "setSize truncates");
        Check.fails(MPI.ERR_ARG, "File.readAt", () -> g.readAt(-1, new int[1], 1, MPI.INT));
        Check.fails(MPI.ERR_UNSUPPORTED_DATAREP, "File.setView", () -> g.setView(0, MPI.INT, MPI.INT, "external32"));
        g.close();
        Check.fails(MPI.ERR_FILE, "File.getSize", g::getSize);
        f.close();

        Check.fails(MPI.ERR_FILE_EXISTS, name, () -> new File(world, name, MPI.MODE_WRONLY | MPI.MODE_CREATE | MPI.MODE_EXCL));
        Check.fails(MPI.ERR_NO_SUCH_FILE, "missing", () -> new File(world, dir + "/missing", MPI.MODE_RDONLY));
        Check.fails(MPI.ERR_AMODE, "new File", () -> new File(world, name, MPI.MODE_RDONLY | MPI.MODE_WRONLY));
        Check.fails(MPI.ERR_AMODE, "new File", () -> new File(world, name, MPI.MODE_RDONLY | MPI.MODE_CREATE));

        // each rank's own file over COMM_SELF, deleted on close
        File own = new File(MPI.COMM_SELF, dir + "/own." + rank, MPI.MODE_WRONLY | MPI.MODE_CREATE | MPI.MODE_DELETE_ON_CLOSE);
        own.write(new double[] {rank}, 1, MPI.DOUBLE);
        Check.equal(8, own.getSize(), "a rank's own file");
        own.close();
        Check.that(!java.nio.file.Files.exists(Path.of(dir, "own." + rank)), "MODE_DELETE_ON_CLOSE removed the file");
        world.barrier();
        if (rank == 0) {
            File.delete(name);
            File.delete(dir + "/records");
            Check.fails(MPI.ERR_NO_SUCH_FILE, "File.delete", () -> File.delete(name));
            java.nio.file.Files.delete(Path.of(dir));
        }
        tile.free();
        blocks.free();
        Check.passed("files");
        MPI.Finalize();
    }

    /** A new directory that rank 0 makes and every rank then uses: the job's files touch nothing else. */
    private static String sharedDirectory(Intracomm world) throws MPIException, IOException {
        char[] name = new char[4096];
        int[] length = new int[1];
        if (world.getRank() == 0) {
            String made = java.nio.file.Files.createTempDirectory("lockstep-files-").toString();
            made.getChars(0, made.length(), name, 0);
            length[0] = made.length();
        }
        world.bcast(length, 1, MPI.INT, 0);
        world.bcast(name, length[0], MPI.CHAR, 0);
        return new String(name, 0, length[0]);
    }
}
