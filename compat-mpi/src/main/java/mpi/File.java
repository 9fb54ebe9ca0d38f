package mpi;

import java.nio.Buffer;

/**
 * A file that the ranks of a communicator read and write together (MPI-IO, {@code MPI_File}).
 * Lockstep does not build MPI-IO: opening a file throws an {@link MPIException} of class
 * {@link MPI#ERR_UNSUPPORTED_OPERATION}, so no file object exists.
 */
public final class File {
    private static final String MISSING = "Lockstep does not build MPI-IO; use java.nio.file or the EM-BSP provider's external memory";

    public File(Comm comm, String filename, int amode) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("new File", MISSING);
    }

    public File(Comm comm, String filename, int amode, Info info) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("new File", MISSING);
    }

    public void close() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.close", MISSING);
    }

    public static void delete(String filename) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.delete", MISSING);
    }

    public static void delete(String filename, Info info) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.delete", MISSING);
    }

    public void setSize(long size) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.setSize", MISSING);
    }

    public void preallocate(long size) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.preallocate", MISSING);
    }

    public long getSize() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getSize", MISSING);
    }

    public Group getGroup() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getGroup", MISSING);
    }

    public int getAMode() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getAMode", MISSING);
    }

    public void setInfo(Info info) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.setInfo", MISSING);
    }

    public Info getInfo() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getInfo", MISSING);
    }

    public void setView(long disp, Datatype etype, Datatype filetype, String datarep) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.setView", MISSING);
    }

    public void setView(long disp, Datatype etype, Datatype filetype, String datarep, Info info) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.setView", MISSING);
    }

    /** The view of the file; unreachable, as no file is ever opened. */
    public FileView getView() {
        throw new IllegalStateException("File.getView: " + MISSING);
    }

    public Status readAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readAt", MISSING);
    }

    public Status readAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readAtAll", MISSING);
    }

    public Status writeAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeAt", MISSING);
    }

    public Status writeAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeAtAll", MISSING);
    }

    public Request iReadAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iReadAt", MISSING);
    }

    public Request iReadAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iReadAtAll", MISSING);
    }

    public Request iWriteAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iWriteAt", MISSING);
    }

    public Request iWriteAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iWriteAtAll", MISSING);
    }

    public Status read(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.read", MISSING);
    }

    public Status readAll(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readAll", MISSING);
    }

    public Status write(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.write", MISSING);
    }

    public Status writeAll(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeAll", MISSING);
    }

    public Request iRead(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iRead", MISSING);
    }

    public Request iReadAll(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iReadAll", MISSING);
    }

    public Request iWrite(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iWrite", MISSING);
    }

    public Request iWriteAll(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iWriteAll", MISSING);
    }

    public void seek(long offset, int whence) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.seek", MISSING);
    }

    public long getPosition() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getPosition", MISSING);
    }

    public long getByteOffset(long offset) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getByteOffset", MISSING);
    }

    public Status readShared(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readShared", MISSING);
    }

    public Status writeShared(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeShared", MISSING);
    }

    public Request iReadShared(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iReadShared", MISSING);
    }

    public Request iWriteShared(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.iWriteShared", MISSING);
    }

    public Status readOrdered(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readOrdered", MISSING);
    }

    public Status writeOrdered(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeOrdered", MISSING);
    }

    public void seekShared(long offset, int whence) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.seekShared", MISSING);
    }

    public long getPositionShared() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getPositionShared", MISSING);
    }

    public void readAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readAtAllBegin", MISSING);
    }

    public Status readAtAllEnd(Object buf) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readAtAllEnd", MISSING);
    }

    public void writeAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeAtAllBegin", MISSING);
    }

    public Status writeAtAllEnd(Object buf) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeAtAllEnd", MISSING);
    }

    public void readAllBegin(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readAllBegin", MISSING);
    }

    public Status readAllEnd(Object buf) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readAllEnd", MISSING);
    }

    public void writeAllBegin(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeAllBegin", MISSING);
    }

    public Status writeAllEnd(Object buf) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeAllEnd", MISSING);
    }

    public void readOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readOrderedBegin", MISSING);
    }

    public Status readOrderedEnd(Object buf) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.readOrderedEnd", MISSING);
    }

    public void writeOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeOrderedBegin", MISSING);
    }

    public Status writeOrderedEnd(Object buf) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.writeOrderedEnd", MISSING);
    }

    public int getTypeExtent(Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getTypeExtent", MISSING);
    }

    public void setAtomicity(boolean atomicity) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.setAtomicity", MISSING);
    }

    public boolean getAtomicity() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getAtomicity", MISSING);
    }

    public void sync() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.sync", MISSING);
    }

    public void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.setErrhandler", MISSING);
    }

    public Errhandler getErrhandler() throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.getErrhandler", MISSING);
    }

    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("File.callErrhandler", MISSING);
    }
}
