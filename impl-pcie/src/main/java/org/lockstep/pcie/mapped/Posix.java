package org.lockstep.pcie.mapped;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;
import java.util.Map;

/**
 * The few Linux C library calls the mapped device needs, bound with the FFM API. Each call that
 * fails throws {@link Failure} carrying {@code errno}; callers turn it into a
 * {@link org.lockstep.spi.device.DeviceException} that names the path.
 *
 * <p>The constants are those of the Linux UAPI headers; they are identical on x86_64 and aarch64,
 * the two platforms {@link #isSupportedPlatform()} admits, except {@link #O_NOFOLLOW}.
 */
final class Posix {
    // open(2) flags
    static final int O_RDWR = 0_2;
    static final int O_CREAT = 0_100;
    static final int O_EXCL = 0_200;
    static final int O_SYNC = 0_4010000;
    static final int O_CLOEXEC = 0_2000000;
    /** Fail with {@link #ELOOP} if the last component of the path is a symbolic link (differs between the two platforms). */
    static final int O_NOFOLLOW = isAarch64() ? 0_100000 : 0_400000;
    /** Permission bits of a file the device creates: read and write for its owner only. */
    static final int MODE_OWNER_READ_WRITE = 0_600;

    // mmap(2) protections and flags
    static final int PROT_READ = 0x1;
    static final int PROT_WRITE = 0x2;
    static final int MAP_SHARED = 0x1;
    static final int MAP_SHARED_VALIDATE = 0x3;
    static final int MAP_SYNC = 0x80000;
    private static final long MAP_FAILED = -1L;

    // msync(2)
    static final int MS_SYNC = 0x4;

    // sysconf(3)
    private static final int SC_PAGESIZE = 30;

    // errno values used in decisions
    static final int EINTR = 4;
    static final int EEXIST = 17;
    static final int EINVAL = 22;
    static final int EFBIG = 27;
    static final int ENOSPC = 28;
    static final int EDQUOT = 122;
    static final int EOPNOTSUPP = 95;
    static final int ELOOP = 40;

    /** The names and texts of the error numbers a device open or access may meet (strerror(3) is not thread-safe everywhere). */
    private static final Map<Integer, String[]> ERRNO_TEXTS = Map.ofEntries(
            errno(1, "EPERM", "Operation not permitted"), errno(2, "ENOENT", "No such file or directory"),
            errno(EINTR, "EINTR", "Interrupted system call"), errno(5, "EIO", "Input/output error"),
            errno(6, "ENXIO", "No such device or address"), errno(9, "EBADF", "Bad file descriptor"),
            errno(12, "ENOMEM", "Cannot allocate memory"), errno(13, "EACCES", "Permission denied"),
            errno(16, "EBUSY", "Device or resource busy"), errno(EEXIST, "EEXIST", "File exists"),
            errno(18, "EXDEV", "Invalid cross-device link"), errno(19, "ENODEV", "No such device"),
            errno(20, "ENOTDIR", "Not a directory"), errno(21, "EISDIR", "Is a directory"),
            errno(EINVAL, "EINVAL", "Invalid argument"), errno(26, "ETXTBSY", "Text file busy"),
            errno(EFBIG, "EFBIG", "File too large"), errno(ENOSPC, "ENOSPC", "No space left on device"),
            errno(30, "EROFS", "Read-only file system"), errno(31, "EMLINK", "Too many links"),
            errno(36, "ENAMETOOLONG", "File name too long"), errno(ELOOP, "ELOOP", "Too many levels of symbolic links"),
            errno(EOPNOTSUPP, "EOPNOTSUPP", "Operation not supported"),
            errno(EDQUOT, "EDQUOT", "Disk quota exceeded"));

    /** A C library call failed. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String function;
        private final int errno;

        Failure(String function, int errno) {
            super(function + ": " + describe(errno), null, false, false);
            this.function = function;
            this.errno = errno;
        }

        String function() {
            return function;
        }

        int errno() {
            return errno;
        }
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO_CAPTURE = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout POINTER = ValueLayout.ADDRESS;

    // Each call is linked on its first use, in a holder class of its own: linking spins a stub class per
    // signature (several ms each in a fresh JVM), and a rank that opens an existing device uses half of them.
    private static final class Open {
        static final MethodHandle HANDLE = bind("open", FunctionDescriptor.of(INT, POINTER, INT, INT),
                ERRNO_CAPTURE, Linker.Option.firstVariadicArg(2));
    }

    private static final class Close {
        static final MethodHandle HANDLE = bind("close", FunctionDescriptor.of(INT, INT), ERRNO_CAPTURE);
    }

    private static final class Fchmod {
        static final MethodHandle HANDLE = bind("fchmod", FunctionDescriptor.of(INT, INT, INT), ERRNO_CAPTURE);
    }

    /** Returns an error number instead of setting errno. */
    private static final class PosixFallocate {
        static final MethodHandle HANDLE = bind("posix_fallocate", FunctionDescriptor.of(INT, INT, LONG, LONG));
    }

    private static final class Fallocate {
        static final MethodHandle HANDLE = bind("fallocate", FunctionDescriptor.of(INT, INT, INT, LONG, LONG), ERRNO_CAPTURE);
    }

    private static final class Link {
        static final MethodHandle HANDLE = bind("link", FunctionDescriptor.of(INT, POINTER, POINTER), ERRNO_CAPTURE);
    }

    private static final class Unlink {
        static final MethodHandle HANDLE = bind("unlink", FunctionDescriptor.of(INT, POINTER), ERRNO_CAPTURE);
    }

    private static final class Mmap {
        static final MethodHandle HANDLE = bind("mmap", FunctionDescriptor.of(POINTER, POINTER, LONG, INT, INT, INT, LONG),
                ERRNO_CAPTURE);
    }

    private static final class Munmap {
        static final MethodHandle HANDLE = bind("munmap", FunctionDescriptor.of(INT, POINTER, LONG), ERRNO_CAPTURE);
    }

    private static final class Msync {
        static final MethodHandle HANDLE = bind("msync", FunctionDescriptor.of(INT, POINTER, LONG, INT), ERRNO_CAPTURE);
    }

    private static final class Sysconf {
        static final MethodHandle HANDLE = bind("sysconf", FunctionDescriptor.of(LONG, INT), ERRNO_CAPTURE);
    }

    private static final class Geteuid {
        static final MethodHandle HANDLE = bind("geteuid", FunctionDescriptor.of(INT));
    }

    /** The size of a memory page, the granularity of {@code mmap} and {@code msync}. */
    static final long PAGE_SIZE = isSupportedPlatform() ? pageSize() : 0;

    private Posix() {
    }

    /** Whether this is Linux on x86_64 or aarch64, the platforms whose flag values this class carries. */
    static boolean isSupportedPlatform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return os.equals("linux") && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"));
    }

    private static boolean isAarch64() {
        return System.getProperty("os.arch", "").toLowerCase(Locale.ROOT).equals("aarch64");
    }

    /** The effective user id of this process: whose files it may trust. */
    static int geteuid() {
        try {
            return (int) Geteuid.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw unexpected("geteuid", t);
        }
    }

    /** A readable form of an error number, e.g. {@code No space left on device (ENOSPC)}. */
    static String describe(int errno) {
        String[] known = ERRNO_TEXTS.get(errno);
        return known == null ? "errno " + errno : known[1] + " (" + known[0] + ")";
    }

    static int open(String path, int flags, int mode) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            int fd = (int) Open.HANDLE.invokeExact(state, call.allocateFrom(path), flags, mode);
            if (fd < 0) {
                throw failure("open", state);
            }
            return fd;
        } catch (Failure | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("open", t);
        }
    }

    static void close(int fd) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            int result = (int) Close.HANDLE.invokeExact(state, fd);
            // a failed close of a descriptor we only read metadata through loses nothing; EINTR still closed it
            if (result != 0 && errno(state) != EINTR) {
                throw failure("close", state);
            }
        } catch (Failure | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("close", t);
        }
    }

    /** Closes {@code fd}, ignoring a failure: used on paths that already report another error. */
    static void closeQuietly(int fd) {
        try {
            close(fd);
        } catch (Failure ignored) {
            // the error being reported matters more
        }
    }

    static void fchmod(int fd, int mode) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            if ((int) Fchmod.HANDLE.invokeExact(state, fd, mode) != 0) {
                throw failure("fchmod", state);
            }
        } catch (Failure | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("fchmod", t);
        }
    }

    /**
     * Allocates the blocks of {@code [offset, offset + length)} so that later stores cannot fail for
     * lack of space; where the file system cannot, the C library writes a byte per block instead.
     */
    static void posixFallocate(int fd, long offset, long length) {
        int error;
        try {
            do {
                error = (int) PosixFallocate.HANDLE.invokeExact(fd, offset, length);
            } while (error == EINTR);
        } catch (Throwable t) {
            throw unexpected("posix_fallocate", t);
        }
        if (error != 0) {
            throw new Failure("posix_fallocate", error);
        }
    }

    /**
     * Linux {@code fallocate(2)} with mode 0: allocates the blocks of {@code [offset, offset + length)}
     * and fails with {@code EOPNOTSUPP} where the file system cannot, unlike {@link #posixFallocate},
     * whose emulation there writes bytes (unsafe in a file others are writing).
     */
    static void fallocate(int fd, long offset, long length) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            int result;
            do {
                result = (int) Fallocate.HANDLE.invokeExact(state, fd, 0, offset, length);
            } while (result != 0 && errno(state) == EINTR);
            if (result != 0) {
                throw failure("fallocate", state);
            }
        } catch (Failure | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("fallocate", t);
        }
    }

    static void link(String existing, String created) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            if ((int) Link.HANDLE.invokeExact(state, call.allocateFrom(existing), call.allocateFrom(created)) != 0) {
                throw failure("link", state);
            }
        } catch (Failure | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("link", t);
        }
    }

    static void unlink(String path) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            if ((int) Unlink.HANDLE.invokeExact(state, call.allocateFrom(path)) != 0) {
                throw failure("unlink", state);
            }
        } catch (Failure | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("unlink", t);
        }
    }

    /** Maps {@code length} bytes of {@code fd} from offset 0, readable and writable; returns the address. */
    static long mmap(long length, int flags, int fd) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            MemorySegment address = (MemorySegment) Mmap.HANDLE.invokeExact(state, MemorySegment.NULL, length,
                    PROT_READ | PROT_WRITE, flags, fd, 0L);
            if (address.address() == MAP_FAILED) {
                throw failure("mmap", state);
            }
            return address.address();
        } catch (Failure | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("mmap", t);
        }
    }

    static void munmap(long address, long length) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            if ((int) Munmap.HANDLE.invokeExact(state, MemorySegment.ofAddress(address), length) != 0) {
                throw failure("munmap", state);
            }
        } catch (Failure | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("munmap", t);
        }
    }

    /**
     * Writes the dirty pages of {@code pages} (page-aligned) back to the file and waits. Passing the
     * segment itself keeps its arena from closing during the call.
     */
    static void msync(MemorySegment pages, int flags) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            if ((int) Msync.HANDLE.invokeExact(state, pages, pages.byteSize(), flags) != 0) {
                throw failure("msync", state);
            }
        } catch (Failure | Error | IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("msync", t);
        }
    }

    private static long pageSize() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CAPTURE_LAYOUT);
            long size = (long) Sysconf.HANDLE.invokeExact(state, SC_PAGESIZE);
            if (size <= 0 || Long.bitCount(size) != 1) {
                throw new IllegalStateException("sysconf(_SC_PAGESIZE) returned " + size);
            }
            return size;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("sysconf", t);
        }
    }

    private static Map.Entry<Integer, String[]> errno(int number, String name, String text) {
        return Map.entry(number, new String[] {name, text});
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    private static Failure failure(String function, MemorySegment state) {
        return new Failure(function, errno(state));
    }

    private static IllegalStateException unexpected(String function, Throwable t) {
        return new IllegalStateException("calling " + function + " through the FFM API failed: " + t, t);
    }

    private static MethodHandle bind(String function, FunctionDescriptor descriptor, Linker.Option... options) {
        if (!isSupportedPlatform()) {
            return null; // never called: every entry point checks the platform first
        }
        MemorySegment symbol = LIBC.find(function).orElseThrow(() ->
                new IllegalStateException("the C library has no function " + function));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }
}
