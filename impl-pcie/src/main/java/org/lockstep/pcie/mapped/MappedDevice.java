package org.lockstep.pcie.mapped;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceAccessChecks;
import org.lockstep.spi.device.DeviceCounters;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.DeviceStatistics;
import org.lockstep.spi.device.ExternalMemory;

/**
 * A device path mapped into this process: a regular file (also in {@code /dev/shm}), a device-DAX
 * character device or a PCIe BAR resource file. Other processes that map the same path see the
 * same bytes; the {@linkplain #capabilities() capabilities} say what else holds, per
 * {@linkplain #kind() kind} and as {@linkplain #description() described}.
 *
 * <p>Every access is checked (open, in bounds, aligned where the SPI says so) before it touches
 * the mapping, so a wrong offset is a {@link DeviceException}, never a stray access. The mapping
 * belongs to a shared arena: {@link #close()} closes the arena, which the FFM runtime makes safe
 * against threads that access the device at that moment (their access fails and surfaces as a
 * {@link DeviceException}; the memory is unmapped only once no access is in flight).
 *
 * <p>What no check can prevent: another process truncating the file under the mapping makes a
 * later access fault (the JVM reports such a fault as an {@link InternalError}). Created files
 * are fully allocated, so a full file system cannot cause that.
 *
 * <p>Persistence: {@link #persist} is {@code msync(MS_SYNC)} of the page-aligned range for a file
 * on a real file system; a store-store fence on RAM-backed files; a full fence on DAX devices and
 * BARs. Only where that
 * makes the bytes durable does the device declare {@link DeviceCapability#PERSISTENT}.
 */
public final class MappedDevice implements ExternalMemory {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
    private static final VarHandle WORD_HANDLE = WORD.varHandle();
    private static final ValueLayout.OfLong UNALIGNED_LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt UNALIGNED_INT = ValueLayout.JAVA_INT_UNALIGNED;
    /** How long {@link #close()} waits for calls that hold the mapping (msync, native code via {@link #asSegment()}). */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String name;
    /** How messages name this device. */
    private final String label;
    private final Path path;
    private final DeviceKind kind;
    private final long capacity;
    private final int blockSize;
    private final Set<DeviceCapability> capabilities;
    private final boolean atomics;
    private final DeviceMapper.PersistMethod persistMethod;
    private final boolean fenceBeforeRelease;
    private final String description;
    private final boolean deleteOnClose;
    private final Arena arena;
    /** The whole mapping, page-rounded: what msync is given. */
    private final MemorySegment pages;
    /** The device's bytes: every access goes through this. */
    private final MemorySegment memory;
    /** This process's counts of accesses to the device (other processes count their own). */
    private final DeviceCounters counters = new DeviceCounters();
    private volatile boolean closed;

    MappedDevice(Path path, int blockSize, DeviceMapper.Mapping mapping, boolean deleteOnClose) {
        this.path = path;
        this.name = path.toString();
        this.label = "mapped device '" + this.name + "'";
        this.kind = mapping.kind();
        this.capacity = mapping.capacity();
        this.blockSize = blockSize;
        this.capabilities = mapping.capabilities();
        this.atomics = capabilities.contains(DeviceCapability.ATOMIC_CAS);
        this.persistMethod = mapping.persistMethod();
        this.fenceBeforeRelease = mapping.fenceBeforeRelease();
        this.description = mapping.description();
        this.deleteOnClose = deleteOnClose;
        this.arena = mapping.arena();
        this.pages = mapping.pages();
        this.memory = pages.asSlice(0, capacity);
    }

    @Override
    public String name() {
        return name;
    }

    /** What kind of path this device maps. */
    public DeviceKind kind() {
        return kind;
    }

    /** How the path was mapped and why the device has the capabilities it declares. */
    public String description() {
        return description;
    }

    @Override
    public long capacity() {
        return capacity;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public Set<DeviceCapability> capabilities() {
        return capabilities;
    }

    /**
     * The mapped memory. Accesses through it bypass the counters and checks of this device; after
     * {@link #close()} they throw {@link IllegalStateException}.
     */
    @Override
    public MemorySegment asSegment() {
        requireOpen("asSegment", 0);
        return memory;
    }

    @Override
    public void read(long offset, MemorySegment target, long targetOffset, long length) {
        check("read", offset, length);
        requireBuffer("read", target, targetOffset, length, true);
        counters.read(length);
        try {
            MemorySegment.copy(memory, offset, target, targetOffset, length);
        } catch (IllegalStateException e) {
            throw failed("read", offset, e);
        }
    }

    @Override
    public void write(long offset, MemorySegment source, long sourceOffset, long length) {
        check("write", offset, length);
        requireBuffer("write", source, sourceOffset, length, false);
        counters.written(length);
        try {
            MemorySegment.copy(source, sourceOffset, memory, offset, length);
        } catch (IllegalStateException e) {
            throw failed("write", offset, e);
        }
    }

    @Override
    public void fill(long offset, long length, byte value) {
        check("fill", offset, length);
        counters.written(length);
        try {
            memory.asSlice(offset, length).fill(value);
        } catch (IllegalStateException e) {
            throw failed("fill", offset, e);
        }
    }

    @Override
    public long getLong(long offset) {
        check("getLong", offset, Long.BYTES);
        counters.read(Long.BYTES);
        try {
            return memory.get(UNALIGNED_LONG, offset);
        } catch (IllegalStateException e) {
            throw failed("getLong", offset, e);
        }
    }

    @Override
    public void putLong(long offset, long value) {
        check("putLong", offset, Long.BYTES);
        counters.written(Long.BYTES);
        try {
            memory.set(UNALIGNED_LONG, offset, value);
        } catch (IllegalStateException e) {
            throw failed("putLong", offset, e);
        }
    }

    @Override
    public int getInt(long offset) {
        check("getInt", offset, Integer.BYTES);
        counters.read(Integer.BYTES);
        try {
            return memory.get(UNALIGNED_INT, offset);
        } catch (IllegalStateException e) {
            throw failed("getInt", offset, e);
        }
    }

    @Override
    public void putInt(long offset, int value) {
        check("putInt", offset, Integer.BYTES);
        counters.written(Integer.BYTES);
        try {
            memory.set(UNALIGNED_INT, offset, value);
        } catch (IllegalStateException e) {
            throw failed("putInt", offset, e);
        }
    }

    @Override
    public long getLongAcquire(long offset) {
        checkWord("getLongAcquire", offset);
        counters.read(Long.BYTES);
        try {
            return (long) WORD_HANDLE.getAcquire(memory, offset);
        } catch (IllegalStateException e) {
            throw failed("getLongAcquire", offset, e);
        }
    }

    @Override
    public void putLongRelease(long offset, long value) {
        checkWord("putLongRelease", offset);
        counters.written(Long.BYTES);
        try {
            if (fenceBeforeRelease) {
                VarHandle.fullFence(); // drains write-combining buffers, which a release store alone may not order
            }
            WORD_HANDLE.setRelease(memory, offset, value);
        } catch (IllegalStateException e) {
            throw failed("putLongRelease", offset, e);
        }
    }

    @Override
    public long getLongVolatile(long offset) {
        checkWord("getLongVolatile", offset);
        counters.read(Long.BYTES);
        try {
            return (long) WORD_HANDLE.getVolatile(memory, offset);
        } catch (IllegalStateException e) {
            throw failed("getLongVolatile", offset, e);
        }
    }

    @Override
    public void putLongVolatile(long offset, long value) {
        checkWord("putLongVolatile", offset);
        counters.written(Long.BYTES);
        try {
            if (fenceBeforeRelease) {
                VarHandle.fullFence();
            }
            WORD_HANDLE.setVolatile(memory, offset, value);
        } catch (IllegalStateException e) {
            throw failed("putLongVolatile", offset, e);
        }
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long value) {
        requireAtomics("compareAndSetLong", offset);
        checkWord("compareAndSetLong", offset);
        counters.atomic();
        try {
            return WORD_HANDLE.compareAndSet(memory, offset, expected, value);
        } catch (IllegalStateException e) {
            throw failed("compareAndSetLong", offset, e);
        }
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        requireAtomics("getAndAddLong", offset);
        checkWord("getAndAddLong", offset);
        counters.atomic();
        try {
            return (long) WORD_HANDLE.getAndAdd(memory, offset, delta);
        } catch (IllegalStateException e) {
            throw failed("getAndAddLong", offset, e);
        }
    }

    /**
     * On a file on a real file system: {@code msync(MS_SYNC)} of the pages that hold
     * {@code [offset, offset + length)}, after which they are on the storage (the file system's
     * durability, e.g. what {@code fsync} gives). On a file in RAM a store-store fence: ordering is
     * all persisting can mean there. Elsewhere a full fence: it orders the writes, and on a
     * synchronous DAX mapping whose persistence domain includes the CPU caches that is all
     * durability needs. A failed write-back (e.g. {@code EIO}) is a {@link DeviceException}: the
     * bytes may not be durable.
     */
    @Override
    public void persist(long offset, long length) {
        check("persist", offset, length);
        counters.persisted(length);
        if (persistMethod == DeviceMapper.PersistMethod.ORDER) {
            VarHandle.storeStoreFence();
            return;
        }
        if (persistMethod == DeviceMapper.PersistMethod.FENCE || length == 0) {
            VarHandle.fullFence();
            return;
        }
        long pageMask = Posix.PAGE_SIZE - 1;
        long start = offset & ~pageMask;
        long end = DeviceMapper.roundUpToPage(offset + length);
        try {
            Posix.msync(pages.asSlice(start, end - start), Posix.MS_SYNC);
        } catch (IllegalStateException e) {
            throw failed("persist", offset, e);
        } catch (Posix.Failure e) {
            throw new DeviceException("mapped device '" + name + "': persist of " + length + " bytes at offset " + offset
                    + " failed, the bytes may not be durable: " + e.getMessage());
        }
    }

    @Override
    public DeviceStatistics statistics() {
        return counters.snapshot();
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Unmaps the device (and removes the file if opened with {@code deleteOnClose=true}). Threads
     * that access the device meanwhile get a {@link DeviceException}; a second close does nothing.
     *
     * @throws DeviceException if the mapping stays held by native code for 10 s, or the file cannot be removed
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // New accesses now fail on the state check; in-flight ones fail inside the arena's close.
        // Calls that hold the mapping (an msync, native code given asSegment()) make close wait.
        long start = System.nanoTime();
        while (true) {
            try {
                arena.close();
                break;
            } catch (IllegalStateException stillAcquired) {
                if (System.nanoTime() - start > CLOSE_WAIT_NANOS) {
                    throw new DeviceException("mapped device '" + name + "': cannot unmap it: " + stillAcquired.getMessage(),
                            stillAcquired);
                }
                Thread.onSpinWait();
            }
        }
        if (deleteOnClose) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                throw new DeviceException("mapped device '" + name + "': unmapped, but the file cannot be removed"
                        + " (option deleteOnClose=true): " + e, e);
            }
        }
    }

    @Override
    public String toString() {
        return "MappedDevice[" + name + ", " + description + ", capacity=" + capacity + ", blockSize=" + blockSize
                + ", capabilities=" + capabilities + (closed ? ", closed" : "") + "]";
    }

    // ---- checks

    private void check(String operation, long offset, long length) {
        requireOpen(operation, offset);
        requireInBounds(operation, offset, length);
    }

    private void checkWord(String operation, long offset) {
        check(operation, offset, Long.BYTES);
        requireAligned(operation, offset);
    }

    private void requireAtomics(String operation, long offset) {
        if (!atomics) {
            throw new DeviceException(ErrorClass.UNSUPPORTED_OPERATION, "mapped device '" + name + "': " + operation
                    + " at offset " + offset + " needs ATOMIC_CAS, which this " + kind.description()
                    + " does not declare (" + description + ")");
        }
    }

    private void requireOpen(String operation, long offset) {
        if (closed) {
            throw new DeviceException(closedMessage(operation, offset));
        }
    }

    private void requireInBounds(String operation, long offset, long length) {
        DeviceAccessChecks.requireInBounds(label, operation, offset, length, capacity);
    }

    private void requireAligned(String operation, long offset) {
        DeviceAccessChecks.requireAligned(label, operation, offset);
    }

    private void requireBuffer(String operation, MemorySegment buffer, long bufferOffset, long length, boolean written) {
        DeviceAccessChecks.requireBuffer(label, operation, buffer, bufferOffset, length, written);
    }

    /** An in-flight access failed: because the device was closed meanwhile, or for the caller's buffer. */
    private RuntimeException failed(String operation, long offset, IllegalStateException cause) {
        if (closed) {
            return new DeviceException(closedMessage(operation, offset), cause);
        }
        return cause;
    }

    private String closedMessage(String operation, long offset) {
        return DeviceAccessChecks.closedMessage(label, operation, offset);
    }
}
