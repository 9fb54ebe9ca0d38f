package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;

import org.lockstep.api.LockstepException;
import org.lockstep.api.Window;

/**
 * A window of memory that other ranks access by one-sided communication ({@code MPI_Win}), over
 * Lockstep's {@link Window}. Origin and target must describe the same elements (same element type
 * and count, {@link WinElements}); assertions are Lockstep's ({@link WinAssertions}: a window acts
 * on those that save it work, and a call given one it does not take is {@link MPI#ERR_ASSERT}), and of
 * the hints only {@code no_locks} is acted on: such a window refuses passive-target locks. A window's failed calls go to its
 * error handler ({@link MPI#ERRORS_ARE_FATAL} unless set, as in MPI); its attributes are the
 * bindings' (predefined {@link MPI#WIN_BASE}, {@link MPI#WIN_SIZE} and {@link MPI#WIN_DISP_UNIT} in
 * bytes, keyvals of its own). Dynamic windows (attach, detach) are not there: they throw an
 * {@link MPIException} of class {@link MPI#ERR_UNSUPPORTED_OPERATION}.
 */
public final class Win implements Freeable {
    private static final String MISSING = "dynamic windows (MPI_Win_create_dynamic, attach, detach) are not in Lockstep's windows";

    /** The null window handle. */
    public static final int WIN_NULL = 0;
    /** Shared-memory window flavours of the bindings' allocating constructor. */
    public static final int FLAVOR_PRIVATE = 0;
    public static final int FLAVOR_SHARED = 1;

    private final Comm comm;
    private Window window;
    private String name = "";
    private Errhandler errhandler = MPI.ERRORS_ARE_FATAL;
    private final Attributes attributes = new Attributes(Attributes.Kind.WIN);
    /** The displacement unit in bytes ({@link MPI#WIN_DISP_UNIT}). */
    private int dispUnitBytes;
    /** The hints it was made with; {@code no_locks=true} makes lock and lockAll errors. */
    private org.lockstep.api.Info hints = org.lockstep.api.Info.EMPTY;

    /**
     * {@code MPI_Win_create} over {@code base} ({@code size} elements of it), which stays the
     * caller's. A size beyond the buffer exposes the buffer only (the bindings pass the size on
     * unchecked, and a program may declare more than it lets others touch); an access beyond it
     * is then an {@code MPI_ERR_RMA_RANGE} error at the origin, never memory outside the buffer.
     */
    public Win(Buffer base, int size, int dispUnit, Info info, Comm comm) throws MPIException {
        this.comm = comm;
        int elementBytes = WinElements.elementBytes(base);
        MemorySegment memory = Buffers.segment(base, "new Win");
        if (size < 0) {
            throw ErrorClasses.argument(ErrorClasses.SIZE, "new Win", "negative size " + size);
        }
        long bytes = Math.min((long) size * elementBytes, memory.byteSize());
        made(dispUnit * elementBytes, info);
        this.window = make("new Win", c -> c.createWindow(memory.asSlice(0, bytes), dispUnitBytes, hints));
    }

    private void made(int unitBytes, Info info) {
        this.dispUnitBytes = unitBytes;
        this.hints = Info.toHints(info);
    }

    /**
     * {@code MPI_Win_allocate} ({@link #FLAVOR_PRIVATE}) or {@code MPI_Win_allocate_shared}
     * ({@link #FLAVOR_SHARED}): the memory is Lockstep's, so {@code base} is not where it is.
     */
    public Win(int size, int dispUnit, Info info, Comm comm, Buffer base, int flavor) throws MPIException {
        this.comm = comm;
        if (flavor != FLAVOR_PRIVATE && flavor != FLAVOR_SHARED) {
            throw ErrorClasses.argument(ErrorClasses.ARG, "new Win", "flavor " + flavor);
        }
        int elementBytes = WinElements.elementBytes(base);
        long bytes = (long) size * elementBytes;
        made(dispUnit * elementBytes, info);
        this.window = make("new Win", c -> flavor == FLAVOR_SHARED ? c.allocateSharedWindow(bytes, dispUnitBytes, hints)
                : c.allocateWindow(bytes, dispUnitBytes, hints));
    }

    /** {@code MPI_Win_create_dynamic}: not there. */
    public Win(Info info, Comm comm) throws MPIException {
        MPI.check();
        this.comm = comm;
        throw ErrorClasses.unsupported("new Win", MISSING);
    }

    private interface Making {
        Window make(org.lockstep.api.Communicator c);
    }

    private interface Call {
        void run(Window w) throws MPIException;
    }

    private Window make(String call, Making making) throws MPIException {
        org.lockstep.api.Communicator c = comm.live(call);
        try {
            return making.make(c);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    private void call(String call, Call body) throws MPIException {
        Window w = live(call);
        try {
            body.run(w);
        } catch (LockstepException e) {
            throw errhandler.handle(call, e);
        }
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
        Group[] g = new Group[1];
        call("Win.getGroup", w -> g[0] = new Group(w.group().worldRanks()));
        return g[0];
    }

    public void put(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        long n = WinElements.of("Win.put", orgCount, orgType, targetCount, targetType);
        MemorySegment data = Buffers.segment(origin, "Win.put");
        call("Win.put", w -> w.put(data, n, orgType.wire, targetRank, targetDisp));
    }

    public void get(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        long n = WinElements.of("Win.get", orgCount, orgType, targetCount, targetType);
        MemorySegment data = Buffers.segment(origin, "Win.get");
        call("Win.get", w -> w.get(data, n, orgType.wire, targetRank, targetDisp));
    }

    public void accumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        long n = WinElements.of("Win.accumulate", orgCount, orgType, targetCount, targetType);
        MemorySegment data = Buffers.segment(origin, "Win.accumulate");
        call("Win.accumulate", w -> w.accumulate(data, n, orgType.wire, targetRank, targetDisp, op.forType(orgType)));
    }

    public void fence(int assertion) throws MPIException {
        if (assertion == 0) {
            call("Win.fence", Window::fence);
        } else {
            Window.Assertion[] given = assertions(assertion, "Win.fence");
            call("Win.fence", w -> w.fence(given));
        }
    }

    public void start(Group group, int assertion) throws MPIException {
        Window.Assertion[] given = assertions(assertion, "Win.start");
        call("Win.start", w -> w.start(lockstepGroup(group), given));
    }

    public void complete() throws MPIException {
        call("Win.complete", Window::complete);
    }

    public void post(Group group, int assertion) throws MPIException {
        Window.Assertion[] given = assertions(assertion, "Win.post");
        call("Win.post", w -> w.post(lockstepGroup(group), given));
    }

    public void waitFor() throws MPIException {
        call("Win.waitFor", Window::waitExposure);
    }

    /** {@code MPI_Win_test}: not there (it would need a non-blocking wait); use {@link #waitFor}. */
    public boolean test() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Win.test", "a non-blocking test of an exposure epoch is not in Lockstep's windows (waitFor is)");
    }

    private static org.lockstep.api.Group lockstepGroup(Group group) throws MPIException {
        if (group == null) {
            throw ErrorClasses.argument(ErrorClasses.GROUP, "Win", "the group is null");
        }
        return org.lockstep.api.Group.of(MPI.COMM_WORLD.getRank(), group.worldRanks());
    }

    public void lock(int lockType, int rank, int assertion) throws MPIException {
        refuseLocksIfAsked("Win.lock");
        Window.LockType type = switch (lockType) {
            case MPI.LOCK_EXCLUSIVE -> Window.LockType.EXCLUSIVE;
            case MPI.LOCK_SHARED -> Window.LockType.SHARED;
            default -> throw ErrorClasses.argument(ErrorClasses.LOCKTYPE, "Win.lock", "lock type " + lockType);
        };
        if (assertion == 0) {
            call("Win.lock", w -> w.lock(type, rank));
        } else {
            Window.Assertion[] given = assertions(assertion, "Win.lock");
            call("Win.lock", w -> w.lock(type, rank, given));
        }
    }

    public void unlock(int rank) throws MPIException {
        call("Win.unlock", w -> w.unlock(rank));
    }

    /** The assertion bits as Lockstep's; bits no MPI_MODE_ names go to the window's handler as ERR_ASSERT. */
    private Window.Assertion[] assertions(int assertion, String call) throws MPIException {
        try {
            return WinAssertions.of(assertion, call);
        } catch (MPIException e) {
            throw errhandler.handle(call, e);
        }
    }

    /** The window was made with the hint {@code no_locks=true}: passive-target epochs are then an error (MPI 4.1 §12.2.1). */
    private void refuseLocksIfAsked(String call) throws MPIException {
        if ("true".equals(hints.get("no_locks").orElse(null))) {
            throw errhandler.handle(call, ErrorClasses.argument(ErrorClasses.RMA_SYNC, call,
                    "the window was made with the hint no_locks=true: no passive-target locks on it"));
        }
    }

    /** Sets what a failed call on this window does ({@code MPI_Win_set_errhandler}). */
    public void setErrhandler(Errhandler errhandler) throws MPIException {
        live("Win.setErrhandler");
        if (errhandler == null) {
            throw ErrorClasses.argument(ErrorClasses.ARG, "Win.setErrhandler", "the error handler is null");
        }
        this.errhandler = errhandler;
    }

    public Errhandler getErrhandler() throws MPIException {
        live("Win.getErrhandler");
        return errhandler;
    }

    /** Raises {@code errorCode} through the window's handler ({@code MPI_Win_call_errhandler}): a fatal one aborts. */
    public void callErrhandler(int errorCode) throws MPIException {
        live("Win.callErrhandler");
        errhandler.raise("Win.callErrhandler", new MPIException(errorCode, "error " + errorCode + " raised on window " + (name.isEmpty() ? "(unnamed)" : name), null));
    }

    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval(Attributes.Kind.WIN);
    }

    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(Attributes.Kind.WIN, keyval, "Win.freeKeyval");
    }

    public void setAttr(int keyval, Object value) throws MPIException {
        live("Win.setAttr");
        attributes.set(keyval, value, "Win.setAttr");
    }

    /** The predefined ones as the bindings give them: base address (Long), size and displacement unit in bytes (Integer). */
    public Object getAttr(int keyval) throws MPIException {
        Window w = live("Win.getAttr");
        return switch (keyval) {
            case MPI.WIN_BASE -> w.segment().address();
            case MPI.WIN_SIZE -> (int) w.segment().byteSize();
            case MPI.WIN_DISP_UNIT -> dispUnitBytes;
            default -> attributes.get(keyval, "Win.getAttr");
        };
    }

    public void deleteAttr(int keyval) throws MPIException {
        live("Win.deleteAttr");
        attributes.delete(keyval, "Win.deleteAttr");
    }

    private Window live(String call) throws MPIException {
        MPI.check();
        Window w = window;
        if (w == null) {
            throw ErrorClasses.argument(ErrorClasses.WIN, call, "the window was freed");
        }
        return w;
    }

    /** {@code MPI_Win_free}: collective. */
    @Override
    public void free() throws MPIException {
        call("Win.free", Window::free);
        window = null;
    }

    public Info getInfo() throws MPIException {
        live("Win.getInfo");
        return Info.ofHints(hints);
    }

    /** Hints are kept; of them only {@code no_locks} is acted on. */
    public void setInfo(Info info) throws MPIException {
        live("Win.setInfo");
        hints = Info.toHints(info);
    }

    /** {@code MPI_Rput}: the request completes at the origin; in an active-target epoch a put ({@link WinRequests}). */
    public Request rPut(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        long n = WinElements.of("Win.rPut", orgCount, orgType, targetCount, targetType);
        MemorySegment data = Buffers.segment(origin, "Win.rPut");
        return WinRequests.startedOrDone(comm, errhandler, "Win.rPut", live("Win.rPut"), w -> w.rput(data, n, orgType.wire, targetRank, targetDisp),
                w -> w.put(data, n, orgType.wire, targetRank, targetDisp));
    }

    /** {@code MPI_Rget}: the request completes once {@code origin} holds the elements (passive-target epochs only). */
    public Request rGet(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType) throws MPIException {
        long n = WinElements.of("Win.rGet", orgCount, orgType, targetCount, targetType);
        MemorySegment data = Buffers.segment(origin, "Win.rGet");
        return WinRequests.started(comm, errhandler, "Win.rGet", live("Win.rGet"), w -> w.rget(data, n, orgType.wire, targetRank, targetDisp));
    }

    public Request rAccumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        long n = WinElements.of("Win.rAccumulate", orgCount, orgType, targetCount, targetType);
        MemorySegment data = Buffers.segment(origin, "Win.rAccumulate");
        return WinRequests.startedOrDone(comm, errhandler, "Win.rAccumulate", live("Win.rAccumulate"),
                w -> w.raccumulate(data, n, orgType.wire, targetRank, targetDisp, op.forType(orgType)),
                w -> w.accumulate(data, n, orgType.wire, targetRank, targetDisp, op.forType(orgType)));
    }

    public void getAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount, Datatype resultType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        long n = WinElements.of("Win.getAccumulate", orgCount, orgType, targetCount, targetType);
        WinElements.of("Win.getAccumulate", resultCount, resultType, targetCount, targetType);
        MemorySegment data = Buffers.segment(origin, "Win.getAccumulate");
        MemorySegment result = Buffers.segment(resultAddr, "Win.getAccumulate");
        call("Win.getAccumulate", w -> w.getAccumulate(data, result, n, orgType.wire, targetRank, targetDisp, op.forType(orgType)));
    }

    public Request rGetAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount, Datatype resultType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        long n = WinElements.of("Win.rGetAccumulate", orgCount, orgType, targetCount, targetType);
        WinElements.of("Win.rGetAccumulate", resultCount, resultType, targetCount, targetType);
        MemorySegment data = Buffers.segment(origin, "Win.rGetAccumulate");
        MemorySegment result = Buffers.segment(resultAddr, "Win.rGetAccumulate");
        return WinRequests.started(comm, errhandler, "Win.rGetAccumulate", live("Win.rGetAccumulate"),
                w -> w.rgetAccumulate(data, result, n, orgType.wire, targetRank, targetDisp, op.forType(orgType)));
    }

    public void lockAll(int assertion) throws MPIException {
        refuseLocksIfAsked("Win.lockAll");
        Window.Assertion[] given = assertions(assertion, "Win.lockAll");
        call("Win.lockAll", w -> w.lockAll(given));
    }

    public void unlockAll() throws MPIException {
        call("Win.unlockAll", Window::unlockAll);
    }

    public void sync() throws MPIException {
        call("Win.sync", Window::sync);
    }

    public void flush(int targetRank) throws MPIException {
        call("Win.flush", w -> w.flush(targetRank));
    }

    public void flushAll() throws MPIException {
        call("Win.flushAll", Window::flushAll);
    }

    public void compareAndSwap(Buffer origin, Buffer compareAddr, Buffer resultAddr, Datatype targetType, int targetRank, int targetDisp) throws MPIException {
        targetType.wireCount("Win.compareAndSwap", 1);
        MemorySegment data = Buffers.segment(origin, "Win.compareAndSwap");
        MemorySegment compare = Buffers.segment(compareAddr, "Win.compareAndSwap");
        MemorySegment result = Buffers.segment(resultAddr, "Win.compareAndSwap");
        call("Win.compareAndSwap", w -> w.compareAndSwap(data, compare, result, targetType.wire, targetRank, targetDisp));
    }

    public void fetchAndOp(Buffer origin, Buffer resultAddr, Datatype dataType, int targetRank, int targetDisp, Op op) throws MPIException {
        dataType.wireCount("Win.fetchAndOp", 1);
        MemorySegment data = Buffers.segment(origin, "Win.fetchAndOp");
        MemorySegment result = Buffers.segment(resultAddr, "Win.fetchAndOp");
        call("Win.fetchAndOp", w -> w.fetchAndOp(data, result, dataType.wire, targetRank, targetDisp, op.forType(dataType)));
    }

    public void flushLocal(int targetRank) throws MPIException {
        call("Win.flushLocal", w -> w.flushLocal(targetRank));
    }

    public void flushLocalAll() throws MPIException {
        call("Win.flushLocalAll", Window::flushLocalAll);
    }

    public String getName() throws MPIException {
        MPI.check();
        return name;
    }

    public void setName(String name) throws MPIException {
        MPI.check();
        this.name = name == null ? "" : name;
    }
}
