package mpi;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * The entry point of the bindings: {@link #Init}, {@link #Finalize}, the world and self
 * communicators, the predefined datatypes, operations and constants, and the helpers for direct
 * buffers.
 *
 * <p>{@code MPI.Init} joins the world of the rank it runs in: the world a launcher bound to this
 * thread when it ran {@code main} as a rank ({@code lockstep run --threads}, EM-BSP), else the
 * launcher's world this process belongs to ({@code lockstep run}, {@code mpirun}, {@code srun}),
 * else a world of one rank. Lockstep gives at most {@link #THREAD_SERIALIZED}: one thread at a
 * time may make MPI calls.
 */
public final class MPI {
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    private static final long START_NANOS = System.nanoTime();
    private static final int MAX_PROCESSOR_NAME = 256;

    public static final int THREAD_SINGLE = 0;
    public static final int THREAD_FUNNELED = 1;
    public static final int THREAD_SERIALIZED = 2;
    public static final int THREAD_MULTIPLE = 3;

    public static final int GRAPH = 2;
    public static final int DIST_GRAPH = 3;
    public static final int CART = 1;

    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;
    public static final int PROC_NULL = -2;
    public static final int UNDEFINED = -32766;
    public static final int ROOT = -4;

    public static final int IDENT = 0;
    public static final int CONGRUENT = 1;
    public static final int SIMILAR = 2;
    public static final int UNEQUAL = 3;

    /** Keys of the predefined attributes of a communicator ({@link Comm#getAttr}). */
    public static final int TAG_UB = 0;
    public static final int HOST = 1;
    public static final int IO = 2;
    public static final int WTIME_IS_GLOBAL = 3;
    public static final int APPNUM = 4;
    public static final int LASTUSEDCODE = 5;
    public static final int UNIVERSE_SIZE = 6;
    public static final int WIN_BASE = 7;
    public static final int WIN_SIZE = 8;
    public static final int WIN_DISP_UNIT = 9;

    /** The version of the MPI standard these bindings follow (the Open MPI 4.1 bindings': 3.1). */
    public static final int VERSION = 3;
    public static final int SUBVERSION = 1;

    public static final int KEYVAL_INVALID = -1;
    public static final int BSEND_OVERHEAD = 128;
    public static final int MAX_OBJECT_NAME = 64;
    public static final int MAX_PORT_NAME = 1024;
    public static final int MAX_DATAREP_STRING = 128;
    public static final int MAX_INFO_KEY = 36;
    public static final int MAX_INFO_VAL = 256;

    public static final int ORDER_C = 0;
    public static final int ORDER_FORTRAN = 1;
    public static final int DISTRIBUTE_BLOCK = 0;
    public static final int DISTRIBUTE_CYCLIC = 1;
    public static final int DISTRIBUTE_NONE = 2;
    public static final int DISTRIBUTE_DFLT_DARG = -1;

    public static final int MODE_CREATE = 1;
    public static final int MODE_RDONLY = 2;
    public static final int MODE_WRONLY = 4;
    public static final int MODE_RDWR = 8;
    public static final int MODE_DELETE_ON_CLOSE = 16;
    public static final int MODE_UNIQUE_OPEN = 32;
    public static final int MODE_EXCL = 64;
    public static final int MODE_APPEND = 128;
    public static final int MODE_SEQUENTIAL = 256;
    public static final int DISPLACEMENT_CURRENT = -54278278;
    public static final int SEEK_SET = 600;
    public static final int SEEK_CUR = 602;
    public static final int SEEK_END = 604;

    public static final int MODE_NOCHECK = 1;
    public static final int MODE_NOPRECEDE = 2;
    public static final int MODE_NOPUT = 4;
    public static final int MODE_NOSTORE = 8;
    public static final int MODE_NOSUCCEED = 16;
    public static final int LOCK_EXCLUSIVE = 1;
    public static final int LOCK_SHARED = 2;

    public static final int SUCCESS = ErrorClasses.SUCCESS;
    public static final int ERR_BUFFER = ErrorClasses.BUFFER;
    public static final int ERR_COUNT = ErrorClasses.COUNT;
    public static final int ERR_TYPE = ErrorClasses.TYPE;
    public static final int ERR_TAG = ErrorClasses.TAG;
    public static final int ERR_COMM = ErrorClasses.COMM;
    public static final int ERR_RANK = ErrorClasses.RANK;
    public static final int ERR_REQUEST = ErrorClasses.REQUEST;
    public static final int ERR_ROOT = ErrorClasses.ROOT;
    public static final int ERR_GROUP = ErrorClasses.GROUP;
    public static final int ERR_OP = ErrorClasses.OP;
    public static final int ERR_TOPOLOGY = ErrorClasses.TOPOLOGY;
    public static final int ERR_DIMS = ErrorClasses.DIMS;
    public static final int ERR_ARG = ErrorClasses.ARG;
    public static final int ERR_UNKNOWN = ErrorClasses.UNKNOWN;
    public static final int ERR_TRUNCATE = ErrorClasses.TRUNCATE;
    public static final int ERR_OTHER = ErrorClasses.OTHER;
    public static final int ERR_INTERN = ErrorClasses.INTERN;
    public static final int ERR_IN_STATUS = ErrorClasses.IN_STATUS;
    public static final int ERR_PENDING = ErrorClasses.PENDING;
    public static final int ERR_ACCESS = ErrorClasses.ACCESS;
    public static final int ERR_AMODE = ErrorClasses.AMODE;
    public static final int ERR_ASSERT = ErrorClasses.ASSERT;
    public static final int ERR_BAD_FILE = ErrorClasses.BAD_FILE;
    public static final int ERR_BASE = ErrorClasses.BASE;
    public static final int ERR_CONVERSION = ErrorClasses.CONVERSION;
    public static final int ERR_DISP = ErrorClasses.DISP;
    public static final int ERR_DUP_DATAREP = ErrorClasses.DUP_DATAREP;
    public static final int ERR_FILE_EXISTS = ErrorClasses.FILE_EXISTS;
    public static final int ERR_FILE_IN_USE = ErrorClasses.FILE_IN_USE;
    public static final int ERR_FILE = ErrorClasses.FILE;
    public static final int ERR_INFO_KEY = ErrorClasses.INFO_KEY;
    public static final int ERR_INFO_NOKEY = ErrorClasses.INFO_NOKEY;
    public static final int ERR_INFO_VALUE = ErrorClasses.INFO_VALUE;
    public static final int ERR_INFO = ErrorClasses.INFO;
    public static final int ERR_IO = ErrorClasses.IO;
    public static final int ERR_KEYVAL = ErrorClasses.KEYVAL;
    public static final int ERR_LOCKTYPE = ErrorClasses.LOCKTYPE;
    public static final int ERR_NAME = ErrorClasses.NAME;
    public static final int ERR_NO_MEM = ErrorClasses.NO_MEM;
    public static final int ERR_NOT_SAME = ErrorClasses.NOT_SAME;
    public static final int ERR_NO_SPACE = ErrorClasses.NO_SPACE;
    public static final int ERR_NO_SUCH_FILE = ErrorClasses.NO_SUCH_FILE;
    public static final int ERR_PORT = ErrorClasses.PORT;
    public static final int ERR_QUOTA = ErrorClasses.QUOTA;
    public static final int ERR_READ_ONLY = ErrorClasses.READ_ONLY;
    public static final int ERR_RMA_CONFLICT = ErrorClasses.RMA_CONFLICT;
    public static final int ERR_RMA_SYNC = ErrorClasses.RMA_SYNC;
    public static final int ERR_SERVICE = ErrorClasses.SERVICE;
    public static final int ERR_SIZE = ErrorClasses.SIZE;
    public static final int ERR_SPAWN = ErrorClasses.SPAWN;
    public static final int ERR_UNSUPPORTED_DATAREP = ErrorClasses.UNSUPPORTED_DATAREP;
    public static final int ERR_UNSUPPORTED_OPERATION = ErrorClasses.UNSUPPORTED_OPERATION;
    public static final int ERR_WIN = ErrorClasses.WIN;
    public static final int ERR_LASTCODE = ErrorClasses.LASTCODE;
    public static final int ERR_SYSRESOURCE = ErrorClasses.SYSRESOURCE;

    public static final Datatype DATATYPE_NULL = Datatype.nullType();
    public static final Datatype BYTE = Datatype.primitive(Datatype.BYTE, org.lockstep.api.Datatype.BYTE, "MPI_BYTE");
    /** A Java {@code char}: two bytes. */
    public static final Datatype CHAR = Datatype.primitive(Datatype.CHAR, org.lockstep.api.Datatype.CHAR, "MPI_CHAR");
    public static final Datatype SHORT = Datatype.primitive(Datatype.SHORT, org.lockstep.api.Datatype.SHORT, "MPI_SHORT");
    /** A Java {@code boolean}: one byte, 0 or 1. */
    public static final Datatype BOOLEAN = Datatype.primitive(Datatype.BOOLEAN, org.lockstep.api.Datatype.BOOLEAN, "MPI_BOOLEAN");
    public static final Datatype INT = Datatype.primitive(Datatype.INT, org.lockstep.api.Datatype.INT, "MPI_INT");
    public static final Datatype LONG = Datatype.primitive(Datatype.LONG, org.lockstep.api.Datatype.LONG, "MPI_LONG");
    public static final Datatype FLOAT = Datatype.primitive(Datatype.FLOAT, org.lockstep.api.Datatype.FLOAT, "MPI_FLOAT");
    public static final Datatype DOUBLE = Datatype.primitive(Datatype.DOUBLE, org.lockstep.api.Datatype.DOUBLE, "MPI_DOUBLE");
    /** Bytes made by {@link Comm#pack}. */
    public static final Datatype PACKED = Datatype.predefined(Datatype.PACKED, Datatype.BYTE, 1, org.lockstep.api.Datatype.BYTE, 1, "MPI_PACKED");
    public static final Datatype INT2 = Datatype.predefined(Datatype.INT2, Datatype.BYTE, 1, org.lockstep.api.Datatype.INT_INT, 1, "MPI_2INT");
    public static final Datatype SHORT_INT = Datatype.predefined(Datatype.SHORT_INT, Datatype.BYTE, 1, org.lockstep.api.Datatype.INT_INT, 1, "MPI_SHORT_INT");
    public static final Datatype LONG_INT = Datatype.predefined(Datatype.LONG_INT, Datatype.BYTE, 1, org.lockstep.api.Datatype.LONG_INT, 1, "MPI_LONG_INT");
    public static final Datatype FLOAT_INT = Datatype.predefined(Datatype.FLOAT_INT, Datatype.BYTE, 1, org.lockstep.api.Datatype.FLOAT_INT, 1, "MPI_FLOAT_INT");
    public static final Datatype DOUBLE_INT = Datatype.predefined(Datatype.DOUBLE_INT, Datatype.BYTE, 1, org.lockstep.api.Datatype.DOUBLE_INT, 1, "MPI_DOUBLE_INT");
    public static final Datatype FLOAT_COMPLEX = Datatype.predefined(Datatype.FLOAT_COMPLEX, Datatype.FLOAT, 4, org.lockstep.api.Datatype.FLOAT, 2, "MPI_C_FLOAT_COMPLEX");
    public static final Datatype DOUBLE_COMPLEX = Datatype.predefined(Datatype.DOUBLE_COMPLEX, Datatype.DOUBLE, 8, org.lockstep.api.Datatype.DOUBLE, 2, "MPI_C_DOUBLE_COMPLEX");

    public static final Int2 int2 = pair(new Int2(), INT2);
    public static final ShortInt shortInt = pair(new ShortInt(), SHORT_INT);
    public static final LongInt longInt = pair(new LongInt(), LONG_INT);
    public static final FloatInt floatInt = pair(new FloatInt(), FLOAT_INT);
    public static final DoubleInt doubleInt = pair(new DoubleInt(), DOUBLE_INT);

    public static final Op MAX = Op.predefined(org.lockstep.api.Op.MAX, "MPI_MAX");
    public static final Op MIN = Op.predefined(org.lockstep.api.Op.MIN, "MPI_MIN");
    public static final Op SUM = Op.predefined(org.lockstep.api.Op.SUM, "MPI_SUM");
    public static final Op PROD = Op.predefined(org.lockstep.api.Op.PROD, "MPI_PROD");
    public static final Op LAND = Op.predefined(org.lockstep.api.Op.LAND, "MPI_LAND");
    public static final Op BAND = Op.predefined(org.lockstep.api.Op.BAND, "MPI_BAND");
    public static final Op LOR = Op.predefined(org.lockstep.api.Op.LOR, "MPI_LOR");
    public static final Op BOR = Op.predefined(org.lockstep.api.Op.BOR, "MPI_BOR");
    public static final Op LXOR = Op.predefined(org.lockstep.api.Op.LXOR, "MPI_LXOR");
    public static final Op BXOR = Op.predefined(org.lockstep.api.Op.BXOR, "MPI_BXOR");
    public static final Op MINLOC = Op.predefined(org.lockstep.api.Op.MINLOC, "MPI_MINLOC");
    public static final Op MAXLOC = Op.predefined(org.lockstep.api.Op.MAXLOC, "MPI_MAXLOC");
    public static final Op REPLACE = Op.predefined(org.lockstep.api.Op.REPLACE, "MPI_REPLACE");
    public static final Op NO_OP = Op.predefined(org.lockstep.api.Op.NO_OP, "MPI_NO_OP");

    public static final Errhandler ERRORS_ARE_FATAL = new Errhandler(true);
    public static final Errhandler ERRORS_RETURN = new Errhandler(false);

    public static final Request REQUEST_NULL = Request.nullRequest();
    public static final Group GROUP_EMPTY = Group.empty();
    public static final Info INFO_NULL = Info.nullInfo();
    public static final Info INFO_ENV = Info.environment();
    private static final StackWalker CALLER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /** Every rank of the job; usable once {@link #Init} has returned. */
    public static final Intracomm COMM_WORLD = new Intracomm("MPI_COMM_WORLD");
    /** This rank alone. */
    public static final Intracomm COMM_SELF = new Intracomm("MPI_COMM_SELF");

    /** The buffer of buffered sends ({@link #attachBuffer}). */
    private static BsendBuffer bsendBuffer;
    /** Buffered sends made with no buffer attached (small ones only; see {@link BsendBuffer}). */
    private static final BsendBuffer EAGER_SENDS = new BsendBuffer(null);

    /** Does nothing: everything here is static; public because the bindings' class has a public constructor. */
    public MPI() {
    }

    private static <T extends Struct> T pair(T layout, Datatype type) {
        layout.bePredefined(type);
        return layout;
    }

    /** Joins the world and returns the arguments ({@code MPI_Init}). */
    public static String[] Init(String[] args) throws MPIException {
        open("MPI.Init", args, THREAD_SINGLE, CALLER.getCallerClass());
        return args;
    }

    /**
     * Joins the world as {@link #Init} does and returns the thread level provided: what was asked
     * for, up to {@link #THREAD_SERIALIZED} ({@code MPI_Init_thread}).
     */
    public static int InitThread(String[] args, int required) throws MPIException {
        if (required < THREAD_SINGLE || required > THREAD_MULTIPLE) {
            throw ErrorClasses.argument(ErrorClasses.ARG, "MPI.InitThread", "no thread level " + required);
        }
        return open("MPI.InitThread", args, Math.min(required, THREAD_SERIALIZED), CALLER.getCallerClass()).threadLevel;
    }

    /** {@code caller}: the class whose code called {@code Init}, the program's "command" in {@link #INFO_ENV}. */
    private static Session open(String call, String[] args, int threadLevel, Class<?> caller) throws MPIException {
        Session session = Session.open(call, args, threadLevel);
        COMM_WORLD.bind(session.world);
        COMM_SELF.bind(session.self);
        INFO_ENV.started(caller.getName(), args, session.world.size());
        return session;
    }

    /** The thread level this rank runs at ({@code MPI_Query_thread}). */
    public static int queryThread() throws MPIException {
        return Session.get().threadLevel;
    }

    /** Whether the calling thread is the one that called {@link #Init} ({@code MPI_Is_thread_main}). */
    public static boolean isThreadMain() throws MPIException {
        return Session.get().initThread == Thread.currentThread();
    }

    /** Leaves the world; collective over every rank ({@code MPI_Finalize}). */
    public static void Finalize() throws MPIException {
        check();
        if (bsendBuffer != null) {
            bsendBuffer.drain();
        }
        EAGER_SENDS.drain();
        Session.close("MPI.Finalize");
        COMM_WORLD.unbind();
        COMM_SELF.unbind();
    }

    /** Seconds since an arbitrary moment of this process ({@code MPI_Wtime}). */
    public static double wtime() throws MPIException {
        check();
        return (System.nanoTime() - START_NANOS) / 1e9;
    }

    /** Resolution of {@link #wtime} in seconds ({@code MPI_Wtick}). */
    public static double wtick() throws MPIException {
        check();
        return 1e-9;
    }

    /** The version of the MPI standard these bindings follow ({@code MPI_Get_version}). */
    public static Version getVersion() {
        return new Version(VERSION, SUBVERSION);
    }

    /** What implements these bindings ({@code MPI_Get_library_version}). */
    public static String getLibVersion() {
        String version = MPI.class.getPackage().getImplementationVersion();
        return "Lockstep " + (version == null ? "(development build)" : version)
                + ": the Open MPI 4.1 Java bindings' API over Lockstep";
    }

    /** The name of this host ({@code MPI_Get_processor_name}). */
    public static String getProcessorName() throws MPIException {
        check();
        String name = hostName();
        return name.length() > MAX_PROCESSOR_NAME ? name.substring(0, MAX_PROCESSOR_NAME) : name;
    }

    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    /** Whether {@link #Init} has been called ({@code MPI_Initialized}). */
    public static boolean isInitialized() throws MPIException {
        return Session.isOpen() || Session.isFinalized();
    }

    /** Whether {@link #Finalize} has been called ({@code MPI_Finalized}). */
    public static boolean isFinalized() throws MPIException {
        return Session.isFinalized();
    }

    /** Gives buffered sends ({@link Comm#bSend}) their buffer ({@code MPI_Buffer_attach}). */
    public static void attachBuffer(byte[] buffer) throws MPIException {
        check();
        if (bsendBuffer != null) {
            throw ErrorClasses.argument(ErrorClasses.BUFFER, "MPI.attachBuffer", "a buffer is attached already");
        }
        bsendBuffer = new BsendBuffer(buffer);
    }

    /** Waits until every buffered send has left, then takes the buffer back ({@code MPI_Buffer_detach}). */
    public static byte[] detachBuffer() throws MPIException {
        check();
        if (bsendBuffer == null) {
            return null;
        }
        BsendBuffer b = bsendBuffer;
        b.drain();
        bsendBuffer = null;
        return b.array();
    }

    /** The attached buffer, else the one that sends small messages without it. */
    static BsendBuffer bsendBuffer(String call) {
        return bsendBuffer != null ? bsendBuffer : EAGER_SENDS;
    }

    /** Profiling control ({@code MPI_Pcontrol}); Lockstep has no profiling levels, so nothing to do. */
    public static void pControl(int level, Object obj) {
        // MPI defines no effect of its own for MPI_Pcontrol; it is a hook for profiling layers.
    }

    /** Fails unless MPI is initialized and not finalized. */
    static void check() throws MPIException {
        Session.get();
    }

    public static ByteBuffer newByteBuffer(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(NATIVE);
    }

    public static CharBuffer newCharBuffer(int capacity) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(capacity, 2)).order(NATIVE).asCharBuffer();
    }

    public static ShortBuffer newShortBuffer(int capacity) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(capacity, 2)).order(NATIVE).asShortBuffer();
    }

    public static IntBuffer newIntBuffer(int capacity) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(capacity, 4)).order(NATIVE).asIntBuffer();
    }

    public static LongBuffer newLongBuffer(int capacity) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(capacity, 8)).order(NATIVE).asLongBuffer();
    }

    public static FloatBuffer newFloatBuffer(int capacity) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(capacity, 4)).order(NATIVE).asFloatBuffer();
    }

    public static DoubleBuffer newDoubleBuffer(int capacity) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(capacity, 8)).order(NATIVE).asDoubleBuffer();
    }

    /** The part of {@code buf} from element {@code offset} on, as a buffer whose element 0 is there. */
    public static ByteBuffer slice(ByteBuffer buf, int offset) {
        return recorded(buf.slice(offset, buf.capacity() - offset).order(NATIVE), buf, offset, 1);
    }

    public static CharBuffer slice(CharBuffer buf, int offset) {
        return recorded(buf.slice(offset, buf.capacity() - offset), buf, offset, 2);
    }

    public static ShortBuffer slice(ShortBuffer buf, int offset) {
        return recorded(buf.slice(offset, buf.capacity() - offset), buf, offset, 2);
    }

    public static IntBuffer slice(IntBuffer buf, int offset) {
        return recorded(buf.slice(offset, buf.capacity() - offset), buf, offset, 4);
    }

    public static LongBuffer slice(LongBuffer buf, int offset) {
        return recorded(buf.slice(offset, buf.capacity() - offset), buf, offset, 8);
    }

    public static FloatBuffer slice(FloatBuffer buf, int offset) {
        return recorded(buf.slice(offset, buf.capacity() - offset), buf, offset, 4);
    }

    public static DoubleBuffer slice(DoubleBuffer buf, int offset) {
        return recorded(buf.slice(offset, buf.capacity() - offset), buf, offset, 8);
    }

    /** A direct buffer's slice remembers where in its parent it starts (a datatype may reach back into the parent). */
    private static <B extends java.nio.Buffer> B recorded(B slice, java.nio.Buffer parent, int offset, int elementBytes) {
        if (slice.isDirect()) {
            Buffers.sliced(slice, parent, (long) offset * elementBytes);
        }
        return slice;
    }

    /** The part of {@code buf} from element {@code offset} on, as a buffer over the same array. */
    public static ByteBuffer slice(byte[] buf, int offset) {
        return ByteBuffer.wrap(buf, offset, buf.length - offset).slice().order(NATIVE);
    }

    public static CharBuffer slice(char[] buf, int offset) {
        return CharBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static ShortBuffer slice(short[] buf, int offset) {
        return ShortBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static IntBuffer slice(int[] buf, int offset) {
        return IntBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static LongBuffer slice(long[] buf, int offset) {
        return LongBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static FloatBuffer slice(float[] buf, int offset) {
        return FloatBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    public static DoubleBuffer slice(double[] buf, int offset) {
        return DoubleBuffer.wrap(buf, offset, buf.length - offset).slice();
    }
}
