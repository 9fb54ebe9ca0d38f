package org.lockstep.mpiprograms;

import java.nio.IntBuffer;
import java.util.Arrays;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Win;

/**
 * One-sided communication: a window over a direct buffer (new Win(base, ...)) with fence epochs of
 * puts and gets around the ranks, fetch-and-add tickets under exclusive locks, an allocated window
 * (FLAVOR_PRIVATE) with accumulate in fences with assertions, a complete without start
 * (MPI.ERR_RMA_SYNC) and assertions a call does not take (MPI.ERR_ASSERT) under ERRORS_RETURN,
 * window attributes and a window made with no_locks.
 */
public final class Windows {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();

        IntBuffer base = MPI.newIntBuffer(size + 1);
        // as in the bindings, size and displacement unit count elements of the buffer: size + 1 ints, unit one int
        Win win = new Win(base, size + 1, 1, MPI.INFO_NULL, world);
        win.fence(0);
        IntBuffer origin = MPI.newIntBuffer(1).put(0, 100 + rank);
        for (int t = 0; t < size; t++) {
            win.put(origin, 1, MPI.INT, t, rank, 1, MPI.INT);
        }
        win.fence(0);
        for (int s = 0; s < size; s++) {
            Check.equal(100 + s, base.get(s), "element " + s + " after the fence (put by rank " + s + ")");
        }
        IntBuffer fetched = MPI.newIntBuffer(1);
        int next = (rank + 1) % size;
        win.get(fetched, 1, MPI.INT, next, next, 1, MPI.INT);
        win.fence(0);
        Check.equal(100 + next, fetched.get(0), "what rank " + next + " holds of its own put, by get");

        IntBuffer one = MPI.newIntBuffer(1).put(0, 1);
        IntBuffer ticket = MPI.newIntBuffer(1);
        win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
        win.fetchAndOp(one, ticket, MPI.INT, 0, size, MPI.SUM);
        win.unlock(0);
        win.fence(0);
        int[] tickets = new int[size];
        world.allGather(new int[] {ticket.get(0)}, 1, MPI.INT, tickets, 1, MPI.INT);
        Arrays.sort(tickets);
        for (int i = 0; i < size; i++) {
            Check.equal(i, tickets[i], "fetch-and-add ticket " + i);
        }

        Check.that(win.getErrhandler() == MPI.ERRORS_ARE_FATAL, "a window's errors are fatal unless set otherwise");
        win.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_RMA_SYNC, "Win.complete", win::complete);
        Check.fails(MPI.ERR_ASSERT, "NOPRECEDE", () -> win.lock(MPI.LOCK_SHARED, 0, MPI.MODE_NOPRECEDE)); // lock takes NOCHECK only
        Check.fails(MPI.ERR_ASSERT, "no MPI.MODE_", () -> win.fence(64));
        win.callErrhandler(MPI.ERR_OTHER); // returns under ERRORS_RETURN
        win.fence(0);
        win.free();

        Win allocated = new Win(2, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(1), Win.FLAVOR_PRIVATE); // 2 ints
        allocated.fence(MPI.MODE_NOPRECEDE); // the assertions, true here, reach Lockstep's window
        allocated.accumulate(MPI.newIntBuffer(1).put(0, rank + 1), 1, MPI.INT, 0, 1, 1, MPI.INT, MPI.SUM);
        allocated.fence(MPI.MODE_NOPUT);
        IntBuffer sum = MPI.newIntBuffer(1);
        allocated.get(sum, 1, MPI.INT, 0, 1, 1, MPI.INT);
        allocated.fence(MPI.MODE_NOSUCCEED);
        Check.equal((long) size * (size + 1) / 2, sum.get(0), "the accumulated sum read back from rank 0");
        allocated.free();
        attributesAndHints(world);
        requestBased(world, rank, size);

        Check.passed("Windows");
        MPI.Finalize();
    }

    /** rPut and rGet under a shared lock on the next rank, rPut in a fence epoch; rGet from PROC_NULL needs no epoch. */
    private static void requestBased(Intracomm world, int rank, int size) throws MPIException {
        IntBuffer base = MPI.newIntBuffer(size);
        Win win = new Win(base, size, 1, MPI.INFO_NULL, world);
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        win.lock(MPI.LOCK_SHARED, next, 0);
        win.rPut(MPI.newIntBuffer(1).put(0, 500 + rank), 1, MPI.INT, next, rank, 1, MPI.INT).waitFor();
        win.unlock(next); // the put is complete at the target
        world.barrier();
        Check.equal(500 + prev, base.get(prev), "rPut by the previous rank");
        IntBuffer got = MPI.newIntBuffer(1);
        win.lock(MPI.LOCK_SHARED, next, MPI.MODE_NOCHECK); // only shared locks on the window now: no conflict to check
        win.rGet(got, 1, MPI.INT, next, rank, 1, MPI.INT).waitFor();
        win.unlock(next);
        Check.equal(500 + rank, got.get(0), "rGet of what this rank put");
        win.rGet(got, 1, MPI.INT, MPI.PROC_NULL, 0, 1, MPI.INT).waitFor();
        win.fence(0); // Open MPI's bindings also take an rPut in a fence epoch: a put there
        win.rPut(MPI.newIntBuffer(1).put(0, 700 + rank), 1, MPI.INT, next, rank, 1, MPI.INT).waitFor();
        win.fence(0);
        Check.equal(700 + prev, base.get(prev), "rPut in a fence epoch");
        win.free();
    }

    /** The predefined attributes in bytes, a keyval of the program's own, and a no_locks window refusing locks. */
    private static void attributesAndHints(Intracomm world) throws MPIException {
        mpi.Info noLocks = new mpi.Info();
        noLocks.set("no_locks", "true");
        Win win = new Win(MPI.newIntBuffer(6), 5, 2, noLocks, world); // 5 ints, unit 2 ints
        Check.equal(20, (Integer) win.getAttr(MPI.WIN_SIZE), "WIN_SIZE in bytes");
        Check.equal(8, (Integer) win.getAttr(MPI.WIN_DISP_UNIT), "WIN_DISP_UNIT in bytes");
        Check.that(win.getAttr(MPI.WIN_BASE) instanceof Long, "WIN_BASE is an address");
        int key = Win.createKeyval();
        Check.that(win.getAttr(key) == null, "no value before setAttr");
        win.setAttr(key, "epoch");
        Check.that("epoch".equals(win.getAttr(key)), "a window attribute of the program's own");
        win.deleteAttr(key);
        Check.that(win.getAttr(key) == null, "deleted");
        Win.freeKeyval(key);
        Check.that("true".equals(win.getInfo().get("no_locks")), "the window keeps its hints");
        win.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_RMA_SYNC, "no_locks", () -> win.lock(MPI.LOCK_SHARED, 0, 0));
        Check.fails(MPI.ERR_RMA_SYNC, "no_locks", () -> win.lockAll(0));
        win.free();
    }
}
