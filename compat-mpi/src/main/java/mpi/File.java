package mpi;

import java.io.IOException;
import java.nio.Buffer;
import java.nio.file.Files;

import org.lockstep.api.LockstepException;

/**
 * A file that the ranks of a communicator open together (MPI-IO, {@code MPI_File}; MPI 4.1
 * chapter 14), read and written through java.nio channels ({@link OpenFile}). A view (disp,
 * etype, filetype, "native") selects the bytes a rank sees; offsets and file pointers count
 * etypes of it. Each rank has its individual file pointer; the shared file pointer lives in a
 * window at rank 0 of the file's group. The calls that MPI makes collective ({@code open},
 * {@code close}, {@code setView}, the {@code *All} and {@code *Ordered} accesses, sizes, sync,
 * atomicity) synchronise every rank of the group; the non-blocking accesses move their data when
 * they start, and a non-blocking collective's request completes once every rank has started it.
 * Files report errors to their error handler, {@link MPI#ERRORS_RETURN} unless set (MPI 4.1 §9.3).
 */
public final class File {
    /** The open file; null once closed. */
    private OpenFile file;
    private Errhandler errhandler = MPI.ERRORS_RETURN;
    private FileView view = new FileView(0, MPI.BYTE, MPI.BYTE, "native");
    private Info info;
    /** Reports the failures of this file's requests through its handler. */
    private final Comm requests;
    /** The status of a split collective begun and not yet ended. */
    private Status split;

    public File(Comm comm, String filename, int amode) throws MPIException {
        this(comm, filename, amode, null);
    }

    public File(Comm comm, String filename, int amode, Info info) throws MPIException {
        MPI.check();
        String call = "new File";
        if (comm == null) {
            throw ErrorClasses.argument(ErrorClasses.COMM, call, "the communicator is null");
        }
        file = OpenFile.open(call, comm, filename, amode);
        this.info = info == null || info.isNull() ? new Info() : info.dup();
        this.requests = new Comm(file.comm, file.members, "file " + filename);
        this.requests.errhandler = errhandler;
        if ((amode & MPI.MODE_APPEND) != 0) {
            long end = file.size(call);
            file.position = end;
            if (file.hasSharedPointer()) {
                file.setShared(call, end);
            }
        }
    }

    /** An access on the open file; its failure goes to the file's error handler. */
    @FunctionalInterface
    private interface Access<T> {
        T run(OpenFile f) throws MPIException;
    }

    private <T> T on(String call, Access<T> access) throws MPIException {
        MPI.check();
        OpenFile f = file;
        try {
            if (f == null) {
                throw ErrorClasses.argument(ErrorClasses.FILE, call, "the file is closed");
            }
            return access.run(f);
        } catch (MPIException e) {
            throw errhandler.handle(call, e);
        } catch (LockstepException e) {
            throw errhandler.handle(call, ErrorClasses.exception(call, e));
        }
    }

    public void close() throws MPIException {
        on("File.close", f -> {
            file = null;
            f.close("File.close");
            return null;
        });
    }

    public static void delete(String filename) throws MPIException {
        delete(filename, null);
    }

    public static void delete(String filename, Info info) throws MPIException {
        MPI.check();
        try {
            Files.delete(OpenFile.pathOf("File.delete", filename));
        } catch (IOException | SecurityException e) {
            throw OpenFile.ioError("File.delete", filename, e);
        }
    }

    public void setSize(long size) throws MPIException {
        on("File.setSize", f -> {
            f.resize("File.setSize", size, false);
            return null;
        });
    }

    public void preallocate(long size) throws MPIException {
        on("File.preallocate", f -> {
            f.resize("File.preallocate", size, true);
            return null;
        });
    }

    public long getSize() throws MPIException {
        return on("File.getSize", f -> f.size("File.getSize"));
    }

    public Group getGroup() throws MPIException {
        return on("File.getGroup", f -> new Group(f.members.clone()));
    }

    public int getAMode() throws MPIException {
        return on("File.getAMode", f -> f.amode);
    }

    public void setInfo(Info info) throws MPIException {
        on("File.setInfo", f -> f.collective("File.setInfo", () -> {
            this.info = info == null || info.isNull() ? new Info() : info.dup();
            return null;
        }));
    }

    public Info getInfo() throws MPIException {
        return on("File.getInfo", f -> info.dup());
    }

    public void setView(long disp, Datatype etype, Datatype filetype, String datarep) throws MPIException {
        setView(disp, etype, filetype, datarep, null);
    }

    public void setView(long disp, Datatype etype, Datatype filetype, String datarep, Info info) throws MPIException {
        String call = "File.setView";
        on(call, f -> {
            f.collective(call, () -> {
                if (!"native".equals(datarep) && !"internal".equals(datarep)) {
                    throw ErrorClasses.argument(ErrorClasses.UNSUPPORTED_DATAREP, call, "data representation '" + datarep
                            + "': Lockstep reads and writes \"native\" (and \"internal\", the same bytes)");
                }
                if ((f.amode & MPI.MODE_SEQUENTIAL) != 0 && disp != MPI.DISPLACEMENT_CURRENT) {
                    throw ErrorClasses.argument(ErrorClasses.UNSUPPORTED_OPERATION, call,
                            "a file opened MODE_SEQUENTIAL takes its view at MPI.DISPLACEMENT_CURRENT");
                }
                long at = disp == MPI.DISPLACEMENT_CURRENT ? f.view.fileByte(f.position * f.view.etypeBytes) : disp;
                f.view = FileViewMap.of(call, at, etype, filetype);
                f.position = 0;
                view = new FileView(at, etype, filetype, datarep);
                return null;
            });
            if (f.hasSharedPointer()) {
                f.setShared(call, 0);
            }
            return null;
        });
    }

    public FileView getView() {
        return view;
    }

    // ---- explicit offsets ----

    private static Status status(long bytes) {
        return new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, ErrorClasses.SUCCESS, false, bytes, 0);
    }

    private static Status at(OpenFile f, String call, boolean write, long offset, Object buf, int count, Datatype type)
            throws MPIException {
        if ((f.amode & MPI.MODE_SEQUENTIAL) != 0) {
            throw ErrorClasses.argument(ErrorClasses.UNSUPPORTED_OPERATION, call, "a file opened MODE_SEQUENTIAL has no explicit offsets");
        }
        if (offset < 0) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "negative offset " + offset);
        }
        return status(f.transfer(call, write, offset * f.view.etypeBytes, buf, count, type));
    }

    public Status readAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        return on("File.readAt", f -> at(f, "File.readAt", false, offset, buf, count, type));
    }

    public Status readAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        return on("File.readAtAll", f -> f.collective("File.readAtAll", () -> at(f, "File.readAtAll", false, offset, buf, count, type)));
    }

    public Status writeAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        return on("File.writeAt", f -> at(f, "File.writeAt", true, offset, buf, count, type));
    }

    public Status writeAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        return on("File.writeAtAll", f -> f.collective("File.writeAtAll", () -> at(f, "File.writeAtAll", true, offset, buf, count, type)));
    }

    public Request iReadAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iReadAt", f -> started("File.iReadAt", at(f, "File.iReadAt", false, offset, buf, count, type)));
    }

    public Request iReadAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iReadAtAll", f -> startedAll(f, "File.iReadAtAll", () -> at(f, "File.iReadAtAll", false, offset, buf, count, type)));
    }

    public Request iWriteAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iWriteAt", f -> started("File.iWriteAt", at(f, "File.iWriteAt", true, offset, buf, count, type)));
    }

    public Request iWriteAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iWriteAtAll", f -> startedAll(f, "File.iWriteAtAll", () -> at(f, "File.iWriteAtAll", true, offset, buf, count, type)));
    }

    /** A non-blocking access, done when it started. */
    private Request started(String call, Status done) throws MPIException {
        return new Request(requests, call, new CompletedRequest(apiStatus(done)));
    }

    /** A non-blocking collective access: this rank's part is done; the request completes when every rank has started. */
    private Request startedAll(OpenFile f, String call, OpenFile.Body<Status> body) throws MPIException {
        Status done;
        try {
            done = body.run();
        } catch (MPIException e) {
            f.ibarrier(call); // the others' requests still complete
            throw e;
        }
        return new Request(requests, call, new FileCollectiveRequest(f.ibarrier(call), apiStatus(done)));
    }

    private static org.lockstep.api.Status apiStatus(Status s) throws MPIException {
        return org.lockstep.api.Status.of(MPI.ANY_SOURCE, MPI.ANY_TAG, s.getCount(MPI.BYTE));
    }

    // ---- the individual file pointer ----

    private static Status individual(OpenFile f, String call, boolean write, Object buf, int count, Datatype type) throws MPIException {
        long moved = f.transfer(call, write, f.position * f.view.etypeBytes, buf, count, type);
        f.position += moved / f.view.etypeBytes;
        return status(moved);
    }

    public Status read(Object buf, int count, Datatype type) throws MPIException {
        return on("File.read", f -> individual(f, "File.read", false, buf, count, type));
    }

    public Status readAll(Object buf, int count, Datatype type) throws MPIException {
        return on("File.readAll", f -> f.collective("File.readAll", () -> individual(f, "File.readAll", false, buf, count, type)));
    }

    public Status write(Object buf, int count, Datatype type) throws MPIException {
        return on("File.write", f -> individual(f, "File.write", true, buf, count, type));
    }

    public Status writeAll(Object buf, int count, Datatype type) throws MPIException {
        return on("File.writeAll", f -> f.collective("File.writeAll", () -> individual(f, "File.writeAll", true, buf, count, type)));
    }

    public Request iRead(Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iRead", f -> started("File.iRead", individual(f, "File.iRead", false, buf, count, type)));
    }

    public Request iReadAll(Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iReadAll", f -> startedAll(f, "File.iReadAll", () -> individual(f, "File.iReadAll", false, buf, count, type)));
    }

    public Request iWrite(Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iWrite", f -> started("File.iWrite", individual(f, "File.iWrite", true, buf, count, type)));
    }

    public Request iWriteAll(Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iWriteAll", f -> startedAll(f, "File.iWriteAll", () -> individual(f, "File.iWriteAll", true, buf, count, type)));
    }

    public void seek(long offset, int whence) throws MPIException {
        on("File.seek", f -> {
            if ((f.amode & MPI.MODE_SEQUENTIAL) != 0) {
                throw ErrorClasses.argument(ErrorClasses.UNSUPPORTED_OPERATION, "File.seek", "a file opened MODE_SEQUENTIAL cannot seek");
            }
            f.position = sought(f, "File.seek", f.position, offset, whence);
            return null;
        });
    }

    /** Where {@code MPI_File_seek(offset, whence)} puts a pointer now at {@code current} (in etypes). */
    private static long sought(OpenFile f, String call, long current, long offset, int whence) throws MPIException {
        long base = switch (whence) {
            case MPI.SEEK_SET -> 0;
            case MPI.SEEK_CUR -> current;
            case MPI.SEEK_END -> f.view.streamLength(f.size(call)) / f.view.etypeBytes;
            default -> throw ErrorClasses.argument(ErrorClasses.ARG, call, "whence " + whence + " is none of SEEK_SET, SEEK_CUR, SEEK_END");
        };
        long to = base + offset;
        if (to < 0) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "offset " + offset + " puts the pointer before the view's start");
        }
        return to;
    }

    public long getPosition() throws MPIException {
        return on("File.getPosition", f -> f.position);
    }

    public long getByteOffset(long offset) throws MPIException {
        return on("File.getByteOffset", f -> {
            if (offset < 0) {
                throw ErrorClasses.argument(ErrorClasses.ARG, "File.getByteOffset", "negative offset " + offset);
            }
            return f.view.fileByte(offset * f.view.etypeBytes);
        });
    }

    // ---- the shared file pointer ----

    private static long requestedEtypes(OpenFile f, String call, int count, Datatype type) throws MPIException {
        return type.wireCount(call, count) * type.wire.size() / f.view.etypeBytes;
    }

    private static Status shared(OpenFile f, String call, boolean write, Object buf, int count, Datatype type) throws MPIException {
        long start = f.fetchAndAddShared(call, requestedEtypes(f, call, count, type));
        return status(f.transfer(call, write, start * f.view.etypeBytes, buf, count, type));
    }

    /** Collective in rank order from the shared file pointer: each rank's part follows the lower ranks' parts. */
    private static Status ordered(OpenFile f, String call, boolean write, Object buf, int count, Datatype type) throws MPIException {
        long[] mine = {0};
        MPIException wrong = null;
        try {
            mine[0] = requestedEtypes(f, call, count, type);
        } catch (MPIException e) {
            wrong = e; // this rank takes no room, and still takes part
        }
        long[] before = new long[1];
        long[] total = new long[1];
        try {
            f.comm.exscan(java.lang.foreign.MemorySegment.ofArray(mine), java.lang.foreign.MemorySegment.ofArray(before), 1,
                    org.lockstep.api.Datatype.LONG, org.lockstep.api.Op.SUM);
            f.comm.allreduce(java.lang.foreign.MemorySegment.ofArray(mine), java.lang.foreign.MemorySegment.ofArray(total), 1,
                    org.lockstep.api.Datatype.LONG, org.lockstep.api.Op.SUM);
            long[] base = {f.comm.rank() == 0 ? f.fetchAndAddShared(call, total[0]) : 0};
            f.comm.bcast(java.lang.foreign.MemorySegment.ofArray(base), 1, org.lockstep.api.Datatype.LONG, 0);
            if (wrong != null) {
                throw wrong;
            }
            long start = base[0] + (f.comm.rank() == 0 ? 0 : before[0]);
            return status(f.transfer(call, write, start * f.view.etypeBytes, buf, count, type));
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
    }

    public Status readShared(Object buf, int count, Datatype type) throws MPIException {
        return on("File.readShared", f -> shared(f, "File.readShared", false, buf, count, type));
    }

    public Status writeShared(Object buf, int count, Datatype type) throws MPIException {
        return on("File.writeShared", f -> shared(f, "File.writeShared", true, buf, count, type));
    }

    public Request iReadShared(Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iReadShared", f -> started("File.iReadShared", shared(f, "File.iReadShared", false, buf, count, type)));
    }

    public Request iWriteShared(Buffer buf, int count, Datatype type) throws MPIException {
        return on("File.iWriteShared", f -> started("File.iWriteShared", shared(f, "File.iWriteShared", true, buf, count, type)));
    }

    public Status readOrdered(Object buf, int count, Datatype type) throws MPIException {
        return on("File.readOrdered", f -> ordered(f, "File.readOrdered", false, buf, count, type));
    }

    public Status writeOrdered(Object buf, int count, Datatype type) throws MPIException {
        return on("File.writeOrdered", f -> ordered(f, "File.writeOrdered", true, buf, count, type));
    }

    public void seekShared(long offset, int whence) throws MPIException {
        String call = "File.seekShared";
        on(call, f -> {
            f.barrier(call);
            long to = sought(f, call, f.fetchAndAddShared(call, 0), offset, whence);
            f.setShared(call, to);
            return null;
        });
    }

    public long getPositionShared() throws MPIException {
        return on("File.getPositionShared", f -> f.fetchAndAddShared("File.getPositionShared", 0));
    }

    // ---- split collectives: the access is done at the begin, its status returned at the end ----

    private void begin(String call, Access<Status> access) throws MPIException {
        on(call, f -> {
            if (split != null) {
                throw ErrorClasses.argument(ErrorClasses.IO, call, "a split collective on this file is begun and not ended");
            }
            split = access.run(f);
            return null;
        });
    }

    private Status end(String call) throws MPIException {
        return on(call, f -> {
            Status s = split;
            if (s == null) {
                throw ErrorClasses.argument(ErrorClasses.IO, call, "no split collective on this file was begun");
            }
            split = null;
            return s;
        });
    }

    public void readAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        begin("File.readAtAllBegin", f -> f.collective("File.readAtAllBegin", () -> at(f, "File.readAtAllBegin", false, offset, buf, count, type)));
    }

    public Status readAtAllEnd(Object buf) throws MPIException {
        return end("File.readAtAllEnd");
    }

    public void writeAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        begin("File.writeAtAllBegin", f -> f.collective("File.writeAtAllBegin", () -> at(f, "File.writeAtAllBegin", true, offset, buf, count, type)));
    }

    public Status writeAtAllEnd(Object buf) throws MPIException {
        return end("File.writeAtAllEnd");
    }

    public void readAllBegin(Object buf, int count, Datatype type) throws MPIException {
        begin("File.readAllBegin", f -> f.collective("File.readAllBegin", () -> individual(f, "File.readAllBegin", false, buf, count, type)));
    }

    public Status readAllEnd(Object buf) throws MPIException {
        return end("File.readAllEnd");
    }

    public void writeAllBegin(Object buf, int count, Datatype type) throws MPIException {
        begin("File.writeAllBegin", f -> f.collective("File.writeAllBegin", () -> individual(f, "File.writeAllBegin", true, buf, count, type)));
    }

    public Status writeAllEnd(Object buf) throws MPIException {
        return end("File.writeAllEnd");
    }

    public void readOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        begin("File.readOrderedBegin", f -> ordered(f, "File.readOrderedBegin", false, buf, count, type));
    }

    public Status readOrderedEnd(Object buf) throws MPIException {
        return end("File.readOrderedEnd");
    }

    public void writeOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        begin("File.writeOrderedBegin", f -> ordered(f, "File.writeOrderedBegin", true, buf, count, type));
    }

    public Status writeOrderedEnd(Object buf) throws MPIException {
        return end("File.writeOrderedEnd");
    }

    // ---- the rest ----

    /** Extent of {@code type} in the file, in its base elements as the bindings count it ("native": its extent in memory). */
    public int getTypeExtent(Datatype type) throws MPIException {
        return on("File.getTypeExtent", f -> type.getExtent());
    }

    public void setAtomicity(boolean atomicity) throws MPIException {
        on("File.setAtomicity", f -> {
            f.setAtomic("File.setAtomicity", atomicity);
            return null;
        });
    }

    public boolean getAtomicity() throws MPIException {
        return on("File.getAtomicity", f -> f.atomic);
    }

    public void sync() throws MPIException {
        on("File.sync", f -> {
            f.sync("File.sync");
            return null;
        });
    }

    public void setErrhandler(Errhandler errhandler) throws MPIException {
        on("File.setErrhandler", f -> {
            if (errhandler == null) {
                throw ErrorClasses.argument(ErrorClasses.ARG, "File.setErrhandler", "the error handler is null");
            }
            this.errhandler = errhandler;
            requests.errhandler = errhandler;
            return null;
        });
    }

    public Errhandler getErrhandler() throws MPIException {
        return on("File.getErrhandler", f -> errhandler);
    }

    /** Raises {@code errorCode} through the file's handler ({@code MPI_File_call_errhandler}): a fatal one aborts. */
    public void callErrhandler(int errorCode) throws MPIException {
        on("File.callErrhandler", f -> {
            errhandler.raise("File.callErrhandler", new MPIException(errorCode, "error " + errorCode + " raised on file " + f.filename, null));
            return null;
        });
    }
}
