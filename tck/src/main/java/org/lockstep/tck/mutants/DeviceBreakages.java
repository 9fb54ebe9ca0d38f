package org.lockstep.tck.mutants;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.ExternalMemory;

/** Breakages of a device ({@link ExternalMemory}), each a plausible device or driver bug. */
final class DeviceBreakages {
    /** Iterations of the window a non-atomic update leaves open between its read and its write. */
    private static final int RACE_WINDOW = 200;
    private static final int LINE = 64;
    private static final long WORD_MASK = ~(long) (Long.BYTES - 1);

    private DeviceBreakages() {
    }

    static ExternalMemory broken(ExternalMemory real, Object breakage) {
        return Forwarders.forward(ExternalMemory.class, real, breakage);
    }

    private static void window() {
        for (int i = 0; i < RACE_WINDOW; i++) {
            Thread.onSpinWait();
        }
    }

    /**
     * The gap of a non-atomic update between its read and its write: a driver that waits for the
     * read's completion off the CPU (50 µs here: long enough for a second claim to land). Waiting
     * parked rather than yielding keeps the window open on an idle machine too, where a yield
     * returns at once and the race was seen to close (the mutant survived MBX.01 in 22 ms).
     */
    private static void readToWriteGap() {
        window();
        java.util.concurrent.locks.LockSupport.parkNanos(READ_COMPLETION_NANOS);
    }

    private static final long READ_COMPLETION_NANOS = 50_000;

    /** Compare-and-set and get-and-add done as a read and a later write: updates race (two owners of one claim). */
    static final class NonAtomicUpdates {
        private final ExternalMemory real;

        NonAtomicUpdates(ExternalMemory real) {
            this.real = real;
        }

        public boolean compareAndSetLong(long offset, long expected, long value) {
            if (real.getLongVolatile(offset) != expected) {
                return false;
            }
            readToWriteGap();
            real.putLongVolatile(offset, value);
            return true;
        }

        public long getAndAddLong(long offset, long delta) {
            long v = real.getLongVolatile(offset);
            readToWriteGap();
            real.putLongVolatile(offset, v + delta);
            return v;
        }
    }

    /** Bulk reads longer than the indirection threshold start one cache line late (a wrong indirect offset). */
    static final class ShiftedIndirectReads {
        private final ExternalMemory real;
        private final long threshold;

        ShiftedIndirectReads(ExternalMemory real, long threshold) {
            this.real = real;
            this.threshold = threshold;
        }

        public void read(long offset, MemorySegment target, long targetOffset, long length) {
            long shifted = length > threshold && offset + LINE + length <= real.capacity() ? offset + LINE : offset;
            real.read(shifted, target, targetOffset, length);
        }
    }

    /** Accesses past the end are clipped or dropped instead of rejected. */
    static final class UncheckedBounds {
        private final ExternalMemory real;

        UncheckedBounds(ExternalMemory real) {
            this.real = real;
        }

        private long clip(long offset, long length) {
            return offset < 0 || offset >= real.capacity() ? 0 : Math.max(0, Math.min(length, real.capacity() - offset));
        }

        public void read(long offset, MemorySegment target, long targetOffset, long length) {
            long n = clip(offset, length);
            if (n > 0) {
                real.read(offset, target, targetOffset, n);
            }
        }

        public void write(long offset, MemorySegment source, long sourceOffset, long length) {
            long n = clip(offset, length);
            if (n > 0) {
                real.write(offset, source, sourceOffset, n);
            }
        }

        public void fill(long offset, long length, byte value) {
            long n = clip(offset, length);
            if (n > 0) {
                real.fill(offset, n, value);
            }
        }

        public long getLong(long offset) {
            return clip(offset, Long.BYTES) == Long.BYTES ? real.getLong(offset) : 0;
        }

        public void putLong(long offset, long value) {
            if (clip(offset, Long.BYTES) == Long.BYTES) {
                real.putLong(offset, value);
            }
        }
    }

    /** Ordered and atomic word accesses round a misaligned offset down instead of rejecting it. */
    static final class UncheckedAlignment {
        private final ExternalMemory real;

        UncheckedAlignment(ExternalMemory real) {
            this.real = real;
        }

        public long getLongAcquire(long offset) {
            return real.getLongAcquire(offset & WORD_MASK);
        }

        public void putLongRelease(long offset, long value) {
            real.putLongRelease(offset & WORD_MASK, value);
        }

        public long getLongVolatile(long offset) {
            return real.getLongVolatile(offset & WORD_MASK);
        }

        public void putLongVolatile(long offset, long value) {
            real.putLongVolatile(offset & WORD_MASK, value);
        }

        public boolean compareAndSetLong(long offset, long expected, long value) {
            return real.compareAndSetLong(offset & WORD_MASK, expected, value);
        }

        public long getAndAddLong(long offset, long delta) {
            return real.getAndAddLong(offset & WORD_MASK, delta);
        }
    }

    /** The device performs atomics but does not declare ATOMIC_CAS (an untruthful declaration). */
    static final class HiddenAtomics {
        private final ExternalMemory real;

        HiddenAtomics(ExternalMemory real) {
            this.real = real;
        }

        public Set<DeviceCapability> capabilities() {
            EnumSet<DeviceCapability> c = real.capabilities().isEmpty() ? EnumSet.noneOf(DeviceCapability.class)
                    : EnumSet.copyOf(real.capabilities());
            c.remove(DeviceCapability.ATOMIC_CAS);
            return Set.copyOf(c);
        }

        public boolean has(DeviceCapability capability) {
            return capabilities().contains(capability);
        }
    }

    /**
     * Plain writes are buffered and reach the device only after the thread's next release store
     * (a write-combining buffer drained too late): a release no longer publishes what came before it.
     */
    static final class LateWrites {
        private final ExternalMemory real;
        private final ThreadLocal<List<Runnable>> buffered = ThreadLocal.withInitial(ArrayList::new);

        LateWrites(ExternalMemory real) {
            this.real = real;
        }

        private void drain() {
            List<Runnable> b = buffered.get();
            for (Runnable r : b) {
                r.run();
            }
            b.clear();
        }

        public void write(long offset, MemorySegment source, long sourceOffset, long length) {
            MemorySegment copy = MemorySegment.ofArray(source.asSlice(sourceOffset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            buffered.get().add(() -> real.write(offset, copy, 0, length));
        }

        public void putLong(long offset, long value) {
            buffered.get().add(() -> real.putLong(offset, value));
        }

        public void putLongRelease(long offset, long value) {
            real.putLongRelease(offset, value);
            window();
            drain();
        }

        public void read(long offset, MemorySegment target, long targetOffset, long length) {
            drain();
            real.read(offset, target, targetOffset, length);
        }

        public long getLong(long offset) {
            drain();
            return real.getLong(offset);
        }
    }

    /** A write also clears the byte after its range. */
    static final class WriteSpills {
        private final ExternalMemory real;

        WriteSpills(ExternalMemory real) {
            this.real = real;
        }

        public void write(long offset, MemorySegment source, long sourceOffset, long length) {
            real.write(offset, source, sourceOffset, length);
            if (length > 0 && offset + length < real.capacity()) {
                real.fill(offset + length, 1, (byte) 0);
            }
        }
    }

    /** persist writes a stale first byte back over the range it persists. */
    static final class PersistCorrupts {
        private final ExternalMemory real;

        PersistCorrupts(ExternalMemory real) {
            this.real = real;
        }

        public void persist(long offset, long length) {
            real.persist(offset, length);
            if (length > 0) {
                MemorySegment one = MemorySegment.ofArray(new byte[1]);
                real.read(offset, one, 0, 1);
                real.fill(offset, 1, (byte) ~one.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            }
        }
    }

    /** persist does nothing: written bytes do not survive power loss. */
    static final class PersistIgnored {
        PersistIgnored(ExternalMemory real) {
        }

        public void persist(long offset, long length) {
            // the breakage: nothing is made durable
        }
    }

    /** close does nothing: the device stays usable. */
    static final class CloseIgnored {
        CloseIgnored(ExternalMemory real) {
        }

        public void close() {
            // the breakage
        }
    }

    /** The device claims a block more capacity than it has. */
    static final class CapacityOverstated {
        private static final long EXTRA = 4096;
        private final ExternalMemory real;

        CapacityOverstated(ExternalMemory real) {
            this.real = real;
        }

        public long capacity() {
            return real.capacity() + EXTRA;
        }
    }
}
