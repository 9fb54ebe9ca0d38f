package org.lockstep.mpiprograms;

import mpi.Comm;
import mpi.Info;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * Init and its queries, time, version, Info, errors under {@code MPI.ERRORS_RETURN} (their
 * classes and messages), calls Lockstep does not support, pack and unpack, and the predefined
 * datatypes' extents.
 */
public final class Environment {
    public static void main(String[] args) throws MPIException {
        Check.that(!MPI.isInitialized(), "not initialized before Init");
        String[] left = MPI.Init(args);
        Check.that(left.length == args.length, "Init returns the arguments");
        Check.that(MPI.isInitialized() && !MPI.isFinalized(), "initialized");
        Check.that(MPI.isThreadMain(), "the thread that called Init is the main thread");
        Check.equal(MPI.THREAD_SINGLE, MPI.queryThread(), "Init gives THREAD_SINGLE");
        Comm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        double t0 = MPI.wtime();
        world.barrier();
        Check.that(MPI.wtime() >= t0 && MPI.wtick() > 0 && MPI.wtick() < 1e-3, "wtime moves forward at a fine tick");
        Check.that(!MPI.getProcessorName().isEmpty(), "a processor name");
        Check.that(MPI.getVersion().getVersion() == 3 && MPI.getVersion().getSubVersion() == 1, "MPI 3.1 bindings");
        Check.that(MPI.getLibVersion().contains("Lockstep"), "library version: " + MPI.getLibVersion());

        Info info = new Info();
        info.set("alpha", "1");
        info.set("beta", "two");
        Info copy = info.dup();
        info.delete("alpha");
        Check.that(info.size() == 1 && copy.size() == 2 && "alpha".equals(copy.getKey(0)) && "two".equals(copy.get("beta")), "info");
        Check.that(copy.get("missing") == null, "a missing info key");
        Check.fails(MPI.ERR_INFO_NOKEY, "Info.delete", () -> info.delete("missing"));
        Check.that(MPI.INFO_ENV.get("host") != null, "INFO_ENV has the host");
        Check.that(Environment.class.getName().equals(MPI.INFO_ENV.get("command")),
                "INFO_ENV's command is the main class: " + MPI.INFO_ENV.get("command"));
        Check.that(Integer.toString(MPI.COMM_WORLD.getSize()).equals(MPI.INFO_ENV.get("maxprocs")), "INFO_ENV's maxprocs");
        String argv = args.length == 0 ? null : String.join(" ", args);
        Check.that(java.util.Objects.equals(argv, MPI.INFO_ENV.get("argv")),
                "INFO_ENV's argv is the program's arguments: " + MPI.INFO_ENV.get("argv"));

        world.setErrhandler(MPI.ERRORS_RETURN);
        Check.that(world.getErrhandler() == MPI.ERRORS_RETURN, "the handler set");
        Check.fails(MPI.ERR_RANK, "Comm.send", () -> world.send(new int[1], 1, MPI.INT, size, 0));
        Check.fails(MPI.ERR_TAG, "Comm.send", () -> world.send(new int[1], 1, MPI.INT, 0, -5));
        Check.fails(MPI.ERR_COUNT, "Comm.recv", () -> world.recv(new int[1], -1, MPI.INT, 0, 0));
        Check.fails(MPI.ERR_BUFFER, "Comm.send", () -> world.send(null, 1, MPI.INT, 0, 0));
        Check.fails(MPI.ERR_ROOT, "Comm.bcast", () -> world.bcast(new int[1], 1, MPI.INT, size + 3));
        Check.fails(MPI.ERR_BUFFER, "Comm.bSend", () -> world.bSend(new byte[1 << 16], 1 << 16, MPI.BYTE, 0, 0));
        // a message longer than the receive buffer: ERR_TRUNCATE, the buffer holds its start
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        world.iSend(MPI.newIntBuffer(4).put(0, 9).put(3, 4), 4, MPI.INT, next, 7);
        int[] shortBuffer = new int[2];
        Check.fails(MPI.ERR_TRUNCATE, "Comm.recv", () -> world.recv(shortBuffer, 2, MPI.INT, prev, 7));
        Check.equal(9, shortBuffer[0], "a truncated receive keeps the message's start");

        // what Lockstep does not do says so, naming the call
        Check.fails(MPI.ERR_UNSUPPORTED_OPERATION, "Intracomm.spawn",
                () -> MPI.COMM_WORLD.spawn("java", new String[0], 1, MPI.INFO_NULL, 0, new int[1]));
        Check.fails(MPI.ERR_UNSUPPORTED_OPERATION, "Intracomm.spawnMultiple", () -> MPI.COMM_WORLD.spawnMultiple(
                new String[] {"java"}, new String[][] {{}}, new int[] {1}, new mpi.Info[] {MPI.INFO_NULL}, 0, new int[1]));
        Check.fails(MPI.ERR_UNSUPPORTED_OPERATION, "new Win", () -> new mpi.Win(MPI.INFO_NULL, world));
        Check.that(mpi.Intercomm.getParent().isNull(), "no parent: nothing spawned this job");

        // pack and unpack
        byte[] packed = new byte[world.packSize(3, MPI.INT) + world.packSize(1, MPI.DOUBLE)];
        int position = world.pack(new int[] {1, 2, 3}, 3, MPI.INT, packed, 0);
        position = world.pack(new double[] {rank + 0.5}, 1, MPI.DOUBLE, packed, position);
        Check.equal(packed.length, position, "packed length");
        byte[] arrived = new byte[packed.length];
        Status s = world.sendRecv(packed, position, MPI.PACKED, next, 8, arrived, arrived.length, MPI.PACKED, prev, 8);
        int[] ints = new int[3];
        double[] d = new double[1];
        int at = world.unpack(arrived, 0, ints, 3, MPI.INT);
        world.unpack(arrived, at, d, 1, MPI.DOUBLE);
        Check.that(ints[2] == 3 && d[0] == prev + 0.5 && s.getCount(MPI.PACKED) == packed.length, "unpacked");

        // predefined datatypes: extents in elements of their base type
        Check.equal(1, MPI.INT.getExtent(), "INT extent");
        Check.equal(2, MPI.DOUBLE_COMPLEX.getExtent(), "DOUBLE_COMPLEX extent in doubles");
        Check.equal(8, MPI.INT2.getExtent(), "INT2 extent in bytes");
        Check.that(MPI.DATATYPE_NULL.isNull(), "DATATYPE_NULL is null");
        int[] dims = new int[3];
        mpi.CartComm.createDims(12, dims);
        Check.equal(new int[] {3, 2, 2}, dims, "createDims");

        Check.passed("environment");
        MPI.Finalize();
        Check.that(MPI.isFinalized(), "finalized");
    }
}
