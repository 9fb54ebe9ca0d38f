package org.lockstep.spi.device;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.lockstep.api.ErrorClass;

/**
 * One region of an {@link ExternalMemory}, {@code [base(), base() + length())}, checked once when
 * made ({@link ExternalMemory#region}) and then accessed by offsets relative to its start: for a
 * protocol that lives in the region and touches a dozen words per message (a ring of slots). An
 * access outside the region throws {@link DeviceException}, as one outside the device does, even
 * where the device has bytes; the ordering rules are {@link ExternalMemory}'s.
 *
 * <p>A region is <em>direct</em> when its device says its accesses need nothing but the memory
 * and the device's ordered-store fence ({@link AbstractExternalMemory#implDirectRegions}): it then
 * reaches the memory without the per-access open, bounds and alignment checks of the device's
 * methods (the memory segment's own checks stay, and a closed device still fails the access with a
 * {@link DeviceException}) and without its access counters, as {@link ExternalMemory#asSegment()}
 * does. Otherwise every access goes through the device's methods, so a latency model, fault
 * injection, persistence tracking or a monitoring wrapper sees it as before.
 */
public final class WordRegion {
    private static final VarHandle WORD_HANDLE = ValueLayout.JAVA_LONG.varHandle();
    private static final ValueLayout.OfLong UNALIGNED_LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt UNALIGNED_INT = ValueLayout.JAVA_INT_UNALIGNED;
    /** Up to this many bytes a direct read copies by words: a bulk copy's checks cost more than a few loads and stores. */
    private static final long WORD_COPY_LIMIT = 32;

    private final ExternalMemory device;
    /** How messages name the device. */
    private final String label;
    private final long base;
    private final long length;
    /** The region's bytes, for a direct region; null when accesses go through {@link #device}. */
    private final MemorySegment memory;
    /** The device of a direct region, for its ordered-store fence and its error messages; null otherwise. */
    private final AbstractExternalMemory owner;

    private WordRegion(ExternalMemory device, long base, long length, MemorySegment memory, AbstractExternalMemory owner) {
        this.device = device;
        this.label = owner != null ? owner.label() : device.name();
        this.base = base;
        this.length = length;
        this.memory = memory;
        this.owner = owner;
    }

    /**
     * A region whose accesses go through {@code device}'s methods (what {@link ExternalMemory#region}
     * makes by default); checks once that it lies in the device and starts on an 8-byte boundary.
     */
    public static WordRegion through(ExternalMemory device, long base, long length) {
        checkRange(device.name(), device.capacity(), base, length);
        return new WordRegion(device, base, length, null, null);
    }

    /** A direct region of {@code owner}'s {@code memory}; the range is checked already. */
    static WordRegion direct(AbstractExternalMemory owner, long base, long length, MemorySegment memory) {
        return new WordRegion(owner, base, length, memory.asSlice(base, length), owner);
    }

    /** {@code [base, base + length)} lies in a device of {@code capacity} bytes and starts 8-byte aligned. */
    static void checkRange(String device, long capacity, long base, long length) {
        DeviceAccessChecks.requireInBounds(device, "region", base, length, capacity);
        DeviceAccessChecks.requireAligned(device, "region", base);
    }

    /** The device offset of the region's first byte. */
    public long base() {
        return base;
    }

    /** Bytes in the region. */
    public long length() {
        return length;
    }

    /** The device this is a region of. */
    public ExternalMemory device() {
        return device;
    }

    /** Whether accesses reach the memory directly (see the class comment). */
    public boolean isDirect() {
        return memory != null;
    }

    /** Plain 8-byte read at {@code offset} from the region's start. */
    public long getLong(long offset) {
        if (memory == null) {
            checkWithin("getLong", offset, Long.BYTES);
            return device.getLong(base + offset);
        }
        try {
            return memory.get(UNALIGNED_LONG, offset);
        } catch (RuntimeException | InternalError e) {
            throw failed("getLong", offset, Long.BYTES, e);
        }
    }

    /** Plain 8-byte write. */
    public void putLong(long offset, long value) {
        if (memory == null) {
            checkWithin("putLong", offset, Long.BYTES);
            device.putLong(base + offset, value);
            return;
        }
        try {
            memory.set(UNALIGNED_LONG, offset, value);
        } catch (RuntimeException | InternalError e) {
            throw failed("putLong", offset, Long.BYTES, e);
        }
    }

    /** Plain 4-byte read. */
    public int getInt(long offset) {
        if (memory == null) {
            checkWithin("getInt", offset, Integer.BYTES);
            return device.getInt(base + offset);
        }
        try {
            return memory.get(UNALIGNED_INT, offset);
        } catch (RuntimeException | InternalError e) {
            throw failed("getInt", offset, Integer.BYTES, e);
        }
    }

    /** 8-byte read with acquire ordering; the word is 8-byte aligned. */
    public long getLongAcquire(long offset) {
        if (memory == null) {
            checkWithin("getLongAcquire", offset, Long.BYTES);
            return device.getLongAcquire(base + offset);
        }
        try {
            return (long) WORD_HANDLE.getAcquire(memory, offset);
        } catch (RuntimeException | InternalError e) {
            throw failed("getLongAcquire", offset, Long.BYTES, e);
        }
    }

    /** 8-byte write with release ordering; the word is 8-byte aligned. */
    public void putLongRelease(long offset, long value) {
        if (memory == null) {
            checkWithin("putLongRelease", offset, Long.BYTES);
            device.putLongRelease(base + offset, value);
            return;
        }
        try {
            owner.implBeforeOrderedStore();
            WORD_HANDLE.setRelease(memory, offset, value);
        } catch (RuntimeException | InternalError e) {
            throw failed("putLongRelease", offset, Long.BYTES, e);
        }
    }

    /** 8-byte volatile read; the word is 8-byte aligned. */
    public long getLongVolatile(long offset) {
        if (memory == null) {
            checkWithin("getLongVolatile", offset, Long.BYTES);
            return device.getLongVolatile(base + offset);
        }
        try {
            return (long) WORD_HANDLE.getVolatile(memory, offset);
        } catch (RuntimeException | InternalError e) {
            throw failed("getLongVolatile", offset, Long.BYTES, e);
        }
    }

    /** Atomic compare-and-set of an aligned word: always through the device (it checks {@link DeviceCapability#ATOMIC_CAS}). */
    public boolean compareAndSetLong(long offset, long expected, long value) {
        checkWithin("compareAndSetLong", offset, Long.BYTES);
        return device.compareAndSetLong(base + offset, expected, value);
    }

    /** Copies {@code n} bytes at {@code offset} into {@code target} at {@code targetOffset}. */
    public void read(long offset, MemorySegment target, long targetOffset, long n) {
        checkWithin("read", offset, n);
        if (memory == null) {
            device.read(base + offset, target, targetOffset, n);
            return;
        }
        DeviceAccessChecks.requireBuffer(label, "read", target, targetOffset, n, true);
        try {
            if (n <= WORD_COPY_LIMIT) {
                copyWords(offset, target, targetOffset, n);
            } else {
                MemorySegment.copy(memory, offset, target, targetOffset, n);
            }
        } catch (RuntimeException | InternalError e) {
            throw failed("read", offset, n, e);
        }
    }

    /** A short read (an in-place payload) as unaligned words, then bytes. */
    private void copyWords(long offset, MemorySegment target, long targetOffset, long n) {
        long k = 0;
        for (; n - k >= Long.BYTES; k += Long.BYTES) {
            target.set(UNALIGNED_LONG, targetOffset + k, memory.get(UNALIGNED_LONG, offset + k));
        }
        for (; k < n; k++) {
            target.set(ValueLayout.JAVA_BYTE, targetOffset + k, memory.get(ValueLayout.JAVA_BYTE, offset + k));
        }
    }

    /** Copies {@code n} bytes from {@code source} at {@code sourceOffset} to {@code offset}. */
    public void write(long offset, MemorySegment source, long sourceOffset, long n) {
        checkWithin("write", offset, n);
        if (memory == null) {
            device.write(base + offset, source, sourceOffset, n);
            return;
        }
        DeviceAccessChecks.requireBuffer(label, "write", source, sourceOffset, n, false);
        try {
            MemorySegment.copy(source, sourceOffset, memory, offset, n);
        } catch (RuntimeException | InternalError e) {
            throw failed("write", offset, n, e);
        }
    }

    private void checkWithin(String operation, long offset, long n) {
        if (offset < 0 || n < 0 || offset > length - n) {
            throw outside(operation, offset, n);
        }
    }

    private DeviceException outside(String operation, long offset, long n) {
        return new DeviceException(label + ": " + operation + " of " + n + " bytes at offset " + offset
                + " of the region [" + base + ", " + (base + length) + ") is outside it");
    }

    /** A direct access failed: outside the region, misaligned, the device closed meanwhile, or its memory faulted. */
    private RuntimeException failed(String operation, long offset, long n, Throwable cause) {
        if (cause instanceof InternalError fault) {
            return owner.faulted(operation, base + offset, fault);
        }
        if (cause instanceof IllegalStateException closedMeanwhile) {
            return owner.failed(operation, base + offset, closedMeanwhile);
        }
        if (cause instanceof IndexOutOfBoundsException) {
            return outside(operation, offset, n);
        }
        if (cause instanceof IllegalArgumentException) {
            return new DeviceException(ErrorClass.ARG, label + ": " + operation + " at offset " + (base + offset)
                    + " is not 8-byte aligned (atomic and ordered words must be)");
        }
        return (RuntimeException) cause;
    }
}
