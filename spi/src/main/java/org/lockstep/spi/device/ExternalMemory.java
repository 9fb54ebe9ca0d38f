package org.lockstep.spi.device;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A byte-addressable device that parallel processes share: PCIe-linked flash, CXL memory, a DAX
 * device, a PCIe BAR, a file in {@code /dev/shm}, or an emulator of one.
 *
 * <p>Every access goes through these methods so that a device can count, delay, check bounds,
 * track persistence or inject faults on the one path. Offsets are byte offsets from the start of
 * the device; an access outside {@code [0, capacity())} throws {@link DeviceException} (never an
 * out-of-bounds access of memory).
 *
 * <p>Ordering: {@link #putLongRelease} publishes every earlier write of the calling thread to
 * whoever reads the same word with {@link #getLongAcquire} and sees the value — the single-writer
 * hand-off the mailbox protocol builds on. Words used this way are 8-byte aligned.
 *
 * <p>Atomic read-modify-write ({@link #compareAndSetLong}, {@link #getAndAddLong}) is available
 * only with {@link DeviceCapability#ATOMIC_CAS}; without it they throw
 * {@link org.lockstep.api.ErrorClass#UNSUPPORTED_OPERATION}.
 */
public interface ExternalMemory extends AutoCloseable {
    /** A name for messages and statistics, e.g. the path. */
    String name();

    /** Size in bytes. */
    long capacity();

    /** Access granularity in bytes (a power of two). */
    int blockSize();

    /** What this device can do. */
    Set<DeviceCapability> capabilities();

    default boolean has(DeviceCapability capability) {
        return capabilities().contains(capability);
    }

    /**
     * The whole device as one memory segment, for code that moves bulk data itself (single-copy
     * delivery, inspection tools). Accesses through it bypass this device's counters, latency model
     * and fault injection; the transport uses the methods below.
     */
    MemorySegment asSegment();

    /**
     * A view of {@code [offset, offset + length)} for the word accesses of a protocol that lives
     * there, by offsets relative to its start ({@link WordRegion}); checked once here: in the device,
     * starting 8-byte aligned. By default its accesses go through this device's methods.
     */
    default WordRegion region(long offset, long length) {
        return WordRegion.through(this, offset, length);
    }

    /** Copies {@code length} bytes from the device at {@code offset} into {@code target} at {@code targetOffset}. */
    void read(long offset, MemorySegment target, long targetOffset, long length);

    /** Copies {@code length} bytes from {@code source} at {@code sourceOffset} to the device at {@code offset}. */
    void write(long offset, MemorySegment source, long sourceOffset, long length);

    /** Fills {@code length} bytes at {@code offset} with {@code value}. */
    void fill(long offset, long length, byte value);

    /** Plain 8-byte read (no ordering). */
    long getLong(long offset);

    /** Plain 8-byte write (no ordering). */
    void putLong(long offset, long value);

    /** Plain 4-byte read. */
    int getInt(long offset);

    /** Plain 4-byte write. */
    void putInt(long offset, int value);

    /** 8-byte read with acquire ordering; {@code offset} must be 8-byte aligned. */
    long getLongAcquire(long offset);

    /** 8-byte write with release ordering; {@code offset} must be 8-byte aligned. */
    void putLongRelease(long offset, long value);

    /** 8-byte volatile read; {@code offset} must be 8-byte aligned. */
    long getLongVolatile(long offset);

    /** 8-byte volatile write; {@code offset} must be 8-byte aligned. */
    void putLongVolatile(long offset, long value);

    /** Atomic compare-and-set of an aligned 8-byte word; needs {@link DeviceCapability#ATOMIC_CAS}. */
    boolean compareAndSetLong(long offset, long expected, long value);

    /** Atomic get-and-add of an aligned 8-byte word; needs {@link DeviceCapability#ATOMIC_CAS}. */
    long getAndAddLong(long offset, long delta);

    /**
     * Persistence barrier: once it returns, the bytes in {@code [offset, offset + length)} written
     * before the call survive power loss (on a device with {@link DeviceCapability#PERSISTENT}; on
     * others it orders the writes and returns).
     */
    void persist(long offset, long length);

    /** Counters since the device was opened. */
    DeviceStatistics statistics();

    /** Unmaps or releases the device; later accesses throw {@link DeviceException}. */
    @Override
    void close();
}
