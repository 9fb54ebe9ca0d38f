package mpi;

import java.nio.Buffer;

/**
 * A window of memory that other ranks access by one-sided communication ({@code MPI_Win}). One-sided
 * communication comes with Lockstep's API for it (issue 16): creating a window throws an
 * {@link MPIException} of class {@link MPI#ERR_UNSUPPORTED_OPERATION}, so no window exists.
 */
public final class Win implements Freeable {
    private static final String MISSING = "one-sided communication comes with Lockstep's API for windows (issue 16)";

    /** The null window handle. */
    public static final int WIN_NULL = 0;
    /** Shared-memory window flavours of the bindings' allocating constructor. */
    public static final int FLAVOR_PRIVATE = 0;
    public static final int FLAVOR_SHARED = 1;

    public Win(Buffer base, int size, int dispUnit, Info info, Comm comm) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("new Win", MISSING);
    }

    public Win(int size, int dispUnit, Info info, Comm comm, Buffer base, int flavor) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("new Win", MISSING);
    }

    public Win(Info info, Comm comm) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("new Win", MISSING);
    }

    public void attach(Buffer base, int size) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.attach", MISSING);
    }

    public void detach(Buffer base) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.detach", MISSING);
    }

    public Group getGroup() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.getGroup", MISSING);
    }

    public void put(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.put", MISSING);
    }

    public void get(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.get", MISSING);
    }

    public void accumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.accumulate", MISSING);
    }

    public void fence(int assertion) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.fence", MISSING);
    }

    public void start(Group group, int assertion) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.start", MISSING);
    }

    public void complete() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.complete", MISSING);
    }

    public void post(Group group, int assertion) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.post", MISSING);
    }

    public void waitFor() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.waitFor", MISSING);
    }

    public boolean test() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.test", MISSING);
    }

    public void lock(int lockType, int rank, int assertion) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.lock", MISSING);
    }

    public void unlock(int rank) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.unlock", MISSING);
    }

    public void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.setErrhandler", MISSING);
    }

    public Errhandler getErrhandler() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.getErrhandler", MISSING);
    }

    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.callErrhandler", MISSING);
    }

    public static int createKeyval() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.createKeyval", MISSING);
    }

    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.freeKeyval", MISSING);
    }

    public void setAttr(int keyval, Object value) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.setAttr", MISSING);
    }

    public Object getAttr(int keyval) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.getAttr", MISSING);
    }

    public void deleteAttr(int keyval) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.deleteAttr", MISSING);
    }

    @Override
    public void free() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.free", MISSING);
    }

    public Info getInfo() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.getInfo", MISSING);
    }

    public void setInfo(Info info) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.setInfo", MISSING);
    }

    public Request rPut(Buffer origin_addr, int origin_count, Datatype origin_datatype, int target_rank, int target_disp, int target_count, Datatype target_datatype) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.rPut", MISSING);
    }

    public Request rGet(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.rGet", MISSING);
    }

    public Request rAccumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.rAccumulate", MISSING);
    }

    public void getAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount, Datatype resultType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.getAccumulate", MISSING);
    }

    public Request rGetAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount, Datatype resultType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.rGetAccumulate", MISSING);
    }

    public void lockAll(int assertion) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.lockAll", MISSING);
    }

    public void unlockAll() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.unlockAll", MISSING);
    }

    public void sync() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.sync", MISSING);
    }

    public void flush(int targetRank) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.flush", MISSING);
    }

    public void flushAll() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.flushAll", MISSING);
    }

    public void compareAndSwap(Buffer origin, Buffer compareAddr, Buffer resultAddr, Datatype targetType, int targetRank, int targetDisp) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.compareAndSwap", MISSING);
    }

    public void fetchAndOp(Buffer origin, Buffer resultAddr, Datatype dataType, int targetRank, int targetDisp, Op op) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.fetchAndOp", MISSING);
    }

    public void flushLocal(int targetRank) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.flushLocal", MISSING);
    }

    public void flushLocalAll() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.flushLocalAll", MISSING);
    }

    public String getName() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.getName", MISSING);
    }

    public void setName(String name) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.setName", MISSING);
    }
}
