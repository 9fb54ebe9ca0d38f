package org.lockstep.pcie.mapped;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.Optional;

import org.lockstep.spi.device.AbstractExternalMemory;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceException;

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
 * later access fault; the JVM reports the fault as an {@link InternalError}, which the accessors
 * turn into a {@link DeviceException} that says so. Where the access ran in compiled code, the JVM
 * may raise it at the thread's next safepoint poll, after the accessor returned: then the caller
 * gets the {@link InternalError} itself. Created files are fully allocated, so a full file system
 * cannot cause that.
 *
 * <p>Persistence: {@link #persist} is {@code msync(MS_SYNC)} of the page-aligned range for a file
 * on a real file system; a store-store fence on RAM-backed files; a full fence on DAX devices and
 * BARs. Only where that
 * makes the bytes durable does the device declare {@link DeviceCapability#PERSISTENT}.
 */
public final class MappedDevice extends AbstractExternalMemory {
    private final DeviceKind kind;
    private final DeviceMapper.PersistMethod persistMethod;
    private final boolean fenceBeforeRelease;
    private final String description;
    private final boolean deleteOnClose;
    /** For a regular file: which file is mapped (so that only it is ever removed) and whether this open created it. */
    private final Optional<PrivateFile> file;
    /** The whole mapping, page-rounded: what msync is given. */
    private final MemorySegment pages;

    MappedDevice(Path path, int blockSize, DeviceMapper.Mapping mapping, boolean deleteOnClose) {
        super(path.toString(), "mapped device '" + path + "'", mapping.capacity(), blockSize, mapping.capabilities(), mapping.arena(),
                mapping.pages().asSlice(0, mapping.capacity()));
        this.kind = mapping.kind();
        this.persistMethod = mapping.persistMethod();
        this.fenceBeforeRelease = mapping.fenceBeforeRelease();
        this.description = mapping.description();
        this.deleteOnClose = deleteOnClose;
        this.file = mapping.file();
        this.pages = mapping.pages();
    }

    /** What kind of path this device maps. */
    public DeviceKind kind() {
        return kind;
    }

    /** How the path was mapped and why the device has the capabilities it declares. */
    public String description() {
        return description;
    }

    /** A mapping needs nothing of a region's accesses but the memory and the fence below. */
    @Override
    protected boolean implDirectRegions() {
        return true;
    }

    @Override
    protected void implBeforeOrderedStore() {
        if (fenceBeforeRelease) {
            VarHandle.fullFence(); // drains write-combining buffers, which a release store alone may not order
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
    protected void implPersist(long offset, long length) {
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
        } catch (Posix.Failure e) {
            throw new DeviceException(label() + ": persist of " + length + " bytes at offset " + offset
                    + " failed, the bytes may not be durable: " + e.getMessage());
        }
    }

    @Override
    protected String implNoAtomicsReason() {
        return "this " + kind.description() + " does not declare (" + description + ")";
    }

    @Override
    protected String implFaultReason() {
        return "the file was truncated under the mapping by another process, or its storage failed";
    }

    /** Removes the file if opened with {@code deleteOnClose=true} (only the very file mapped). */
    @Override
    protected void implClosed() {
        if (deleteOnClose) {
            removeFile();
        }
    }

    /** Whether opening this device created its file (false for a file that existed, and for devices that are not files). */
    public boolean createdFile() {
        return file.map(PrivateFile::created).orElse(false);
    }

    /**
     * Removes the device's file if its path still names the file this device mapped (compare and
     * delete), so that a file another job put at the same path meanwhile is never touched. Devices
     * that are not regular files are never removed. Safe to call while mapped: the mapping stays
     * valid until closed.
     *
     * @return whether the file was removed
     */
    public boolean removeFile() {
        return file.map(PrivateFile::removeIfUnchanged).orElse(false);
    }

    @Override
    public String toString() {
        return "MappedDevice[" + name() + ", " + description + ", capacity=" + capacity() + ", blockSize=" + blockSize()
                + ", capabilities=" + capabilities() + (isClosed() ? ", closed" : "") + "]";
    }
}
