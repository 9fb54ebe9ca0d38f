package org.lockstep.emulated;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.EnumSet;
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
 * An emulated PCIe-linked storage device: off-heap memory of a shared arena, so every thread of
 * the JVM may access it, behind the checks, counters and models of {@link ExternalMemory}.
 *
 * <p>What it emulates, per {@linkplain EmulatedDeviceOptions option}: atomic read-modify-write or
 * its absence (a PCIe BAR), persistence ({@link #persist} copies lines to a durable image, and
 * {@link #crash()} loses what was not persisted, as power loss would), and a latency/bandwidth
 * model. Capabilities are declared exactly as configured.
 *
 * <p>Every access follows one path, so that counting, delays and fault injection have one place:
 * it is checked (open, in bounds, aligned), then started (delayed and counted), then performed;
 * every mutation passes {@code startWrite} just before its store and {@code written} just after
 * it (where the persistence tracker marks the lines dirty). Accesses outside the
 * device, misaligned atomic words and accesses after {@link #close()} throw
 * {@link DeviceException}; closing while other threads access the device is safe (the shared
 * arena's close makes their in-flight accesses fail, which surfaces as a {@link DeviceException}).
 *
 * <p>Counting: {@code read}/{@code get*} count as reads, {@code write}/{@code fill}/{@code put*}
 * as writes (bytes as transferred); compare-and-set and get-and-add count as atomic operations
 * only; a persist counts the bytes it was asked to persist.
 */
public final class EmulatedDevice implements org.lockstep.spi.device.CrashInjectable, ExternalMemory {
    /** Bytes per persistence line: persisting any byte of a line persists the whole line. */
    public static final int PERSISTENCE_LINE_BYTES = PersistenceTracker.LINE_BYTES;

    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
    private static final VarHandle WORD_HANDLE = WORD.varHandle();
    private static final ValueLayout.OfLong UNALIGNED_LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt UNALIGNED_INT = ValueLayout.JAVA_INT_UNALIGNED;
    /** How long {@link #close()} waits for native code that holds the memory (via {@link #asSegment()}). */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String name;
    /** How messages name this device. */
    private final String label;
    private final long capacity;
    private final int blockSize;
    private final Set<DeviceCapability> capabilities;
    private final boolean atomics;
    private final Arena arena;
    private final MemorySegment memory;
    private final PersistenceTracker persistence;
    /** Whether persistence is tracked, and so power loss can be injected. */
    private final boolean track;
    private final LatencyModel latency;
    private final DeviceCounters counters = new DeviceCounters();
    private volatile boolean closed;

    /**
     * Allocates (zeroed) memory of {@code capacity} bytes.
     *
     * @throws DeviceException with {@link ErrorClass#NO_MEM} if the memory cannot be had
     */
    EmulatedDevice(String name, long capacity, int blockSize, EmulatedDeviceOptions options) {
        if (capacity <= 0) {
            throw new DeviceException(ErrorClass.ARG, "emulated device '" + name + "': capacity must be positive, got " + capacity);
        }
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1) {
            throw new DeviceException(ErrorClass.ARG, "emulated device '" + name + "': block size must be a power of two, got " + blockSize);
        }
        this.name = name;
        this.label = "emulated device '" + this.name + "'";
        this.capacity = capacity;
        this.blockSize = blockSize;
        this.atomics = options.atomics();
        this.latency = LatencyModel.of(options);
        this.arena = Arena.ofShared();
        boolean track = options.persistence() == EmulatedDeviceOptions.Persistence.TRACK;
        this.track = track;
        try {
            this.memory = arena.allocate(capacity, Math.max(blockSize, PERSISTENCE_LINE_BYTES));
            this.persistence = track ? PersistenceTracker.tracking(arena, memory) : PersistenceTracker.untracked();
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            arena.close();
            DeviceException noMemory = new DeviceException(ErrorClass.NO_MEM, "emulated device '" + name + "': cannot allocate "
                    + capacity + " bytes" + (track ? " (twice that, plus a dirty map, with persistence=track)" : "")
                    + ": " + e.getMessage() + " (off-heap memory is limited by -XX:MaxDirectMemorySize, default the heap size)");
            noMemory.initCause(e); // DeviceException has no (ErrorClass, String, Throwable) constructor
            throw noMemory;
        }
        EnumSet<DeviceCapability> declared = EnumSet.noneOf(DeviceCapability.class);
        if (atomics) {
            declared.add(DeviceCapability.ATOMIC_CAS);
        }
        if (track) {
            declared.add(DeviceCapability.PERSISTENT);
            declared.add(DeviceCapability.CRASH_INJECTION);
        }
        if (options.latencyModelled()) {
            declared.add(DeviceCapability.LATENCY_MODEL);
        }
        this.capabilities = Collections.unmodifiableSet(declared);
    }

    @Override
    public String name() {
        return name;
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
     * The raw memory. Accesses through it bypass the counters, the latency model and persistence
     * tracking (a write through it is never marked unpersisted, so {@link #crash()} keeps it only
     * if a later {@link #persist} of its line copies it). After {@link #close()} its accesses throw
     * {@link IllegalStateException}.
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
        startRead(length);
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
        startWrite(offset, length, false);
        try {
            MemorySegment.copy(source, sourceOffset, memory, offset, length);
            written(offset, length);
        } catch (IllegalStateException e) {
            throw failed("write", offset, e);
        }
    }

    @Override
    public void fill(long offset, long length, byte value) {
        check("fill", offset, length);
        startWrite(offset, length, false);
        try {
            memory.asSlice(offset, length).fill(value);
            written(offset, length);
        } catch (IllegalStateException e) {
            throw failed("fill", offset, e);
        }
    }

    @Override
    public long getLong(long offset) {
        check("getLong", offset, Long.BYTES);
        startRead(Long.BYTES);
        try {
            return memory.get(UNALIGNED_LONG, offset);
        } catch (IllegalStateException e) {
            throw failed("getLong", offset, e);
        }
    }

    @Override
    public void putLong(long offset, long value) {
        check("putLong", offset, Long.BYTES);
        startWrite(offset, Long.BYTES, false);
        try {
            memory.set(UNALIGNED_LONG, offset, value);
            written(offset, Long.BYTES);
        } catch (IllegalStateException e) {
            throw failed("putLong", offset, e);
        }
    }

    @Override
    public int getInt(long offset) {
        check("getInt", offset, Integer.BYTES);
        startRead(Integer.BYTES);
        try {
            return memory.get(UNALIGNED_INT, offset);
        } catch (IllegalStateException e) {
            throw failed("getInt", offset, e);
        }
    }

    @Override
    public void putInt(long offset, int value) {
        check("putInt", offset, Integer.BYTES);
        startWrite(offset, Integer.BYTES, false);
        try {
            memory.set(UNALIGNED_INT, offset, value);
            written(offset, Integer.BYTES);
        } catch (IllegalStateException e) {
            throw failed("putInt", offset, e);
        }
    }

    @Override
    public long getLongAcquire(long offset) {
        checkWord("getLongAcquire", offset);
        startRead(Long.BYTES);
        try {
            return (long) WORD_HANDLE.getAcquire(memory, offset);
        } catch (IllegalStateException e) {
            throw failed("getLongAcquire", offset, e);
        }
    }

    @Override
    public void putLongRelease(long offset, long value) {
        checkWord("putLongRelease", offset);
        startWrite(offset, Long.BYTES, false);
        try {
            WORD_HANDLE.setRelease(memory, offset, value);
            written(offset, Long.BYTES);
        } catch (IllegalStateException e) {
            throw failed("putLongRelease", offset, e);
        }
    }

    @Override
    public long getLongVolatile(long offset) {
        checkWord("getLongVolatile", offset);
        startRead(Long.BYTES);
        try {
            return (long) WORD_HANDLE.getVolatile(memory, offset);
        } catch (IllegalStateException e) {
            throw failed("getLongVolatile", offset, e);
        }
    }

    @Override
    public void putLongVolatile(long offset, long value) {
        checkWord("putLongVolatile", offset);
        startWrite(offset, Long.BYTES, false);
        try {
            WORD_HANDLE.setVolatile(memory, offset, value);
            written(offset, Long.BYTES);
        } catch (IllegalStateException e) {
            throw failed("putLongVolatile", offset, e);
        }
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long value) {
        requireAtomics("compareAndSetLong", offset);
        checkWord("compareAndSetLong", offset);
        startWrite(offset, Long.BYTES, true);
        try {
            boolean swapped = WORD_HANDLE.compareAndSet(memory, offset, expected, value);
            if (swapped) {
                written(offset, Long.BYTES);
            }
            return swapped;
        } catch (IllegalStateException e) {
            throw failed("compareAndSetLong", offset, e);
        }
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        requireAtomics("getAndAddLong", offset);
        checkWord("getAndAddLong", offset);
        startWrite(offset, Long.BYTES, true);
        try {
            long previous = (long) WORD_HANDLE.getAndAdd(memory, offset, delta);
            written(offset, Long.BYTES);
            return previous;
        } catch (IllegalStateException e) {
            throw failed("getAndAddLong", offset, e);
        }
    }

    /**
     * Copies the written lines of {@code [offset, offset + length)} to the durable image (whole
     * lines of {@link #PERSISTENCE_LINE_BYTES}); with {@code persistence=off} it only orders the
     * writes. Costs the model's latency, not its bandwidth.
     */
    @Override
    public void persist(long offset, long length) {
        check("persist", offset, length);
        if (track) {
            strikeIfArmed();
        }
        latency.delay(0);
        counters.persisted(length);
        try {
            persistence.persist(offset, length);
        } catch (IllegalStateException e) {
            throw failed("persist", offset, e);
        }
    }

    @Override
    public DeviceStatistics statistics() {
        return counters.snapshot();
    }

    /**
     * Whether every byte of {@code [offset, offset + length)} is durable: no line it touches was
     * written since that line was last persisted.
     *
     * @throws DeviceException {@link ErrorClass#UNSUPPORTED_OPERATION} with {@code persistence=off}
     */
    public boolean isPersisted(long offset, long length) {
        requireTracking("isPersisted");
        check("isPersisted", offset, length);
        try {
            return persistence.isPersisted(offset, length);
        } catch (IllegalStateException e) {
            throw failed("isPersisted", offset, e);
        }
    }

    /**
     * Bytes written but not yet persisted, counted in whole lines (the last line of the device
     * may be shorter).
     *
     * @throws DeviceException {@link ErrorClass#UNSUPPORTED_OPERATION} with {@code persistence=off}
     */
    public long unpersistedBytes() {
        requireTracking("unpersistedBytes");
        requireOpen("unpersistedBytes", 0);
        try {
            return persistence.unpersistedBytes();
        } catch (IllegalStateException e) {
            throw failed("unpersistedBytes", 0, e);
        }
    }

    /**
     * Emulates power loss: every line written since it was last persisted reverts to its durable
     * content; the device stays open, as after a reboot. The caller stops every other accessor
     * first (power loss stops the machine too); a concurrent access makes the outcome undefined.
     *
     * @return the bytes that were reverted (whole lines)
     * @throws DeviceException {@link ErrorClass#UNSUPPORTED_OPERATION} with {@code persistence=off}
     */
    public long crash() {
        requireTracking("crash");
        requireOpen("crash", 0);
        try {
            return persistence.crash();
        } catch (IllegalStateException e) {
            throw failed("crash", 0, e);
        }
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Releases the memory. Threads that access the device meanwhile get a {@link DeviceException};
     * a second close does nothing.
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
        // Only native code holding the memory (acquired through asSegment()) makes close wait.
        long start = System.nanoTime();
        while (true) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException stillAcquired) {
                if (System.nanoTime() - start > CLOSE_WAIT_NANOS) {
                    throw new DeviceException("emulated device '" + name + "': cannot release its memory: "
                            + stillAcquired.getMessage(), stillAcquired);
                }
                Thread.onSpinWait();
            }
        }
    }

    @Override
    public String toString() {
        return "EmulatedDevice[" + name + ", capacity=" + capacity + ", blockSize=" + blockSize
                + ", capabilities=" + capabilities + (closed ? ", closed" : "") + "]";
    }

    // ---- the access path: check, then start (delay and count), then access; a mutation then reports
    // what it wrote. startWrite and written are the two points every mutation passes.

    private void check(String operation, long offset, long length) {
        requireOpen(operation, offset);
        requireInBounds(operation, offset, length);
    }

    private void checkWord(String operation, long offset) {
        check(operation, offset, Long.BYTES);
        requireAligned(operation, offset);
    }

    private void startRead(long length) {
        if (track) {
            requirePower();
        }
        latency.delay(length);
        counters.read(length);
    }

    /** Every mutation passes here just before its store, after its checks (fault injection hooks in here). */
    private void startWrite(long offset, long length, boolean atomic) {
        if (track) {
            strikeIfArmed();
        }
        latency.delay(length);
        if (atomic) {
            counters.atomic();
        } else {
            counters.written(length);
        }
    }

    // ---- power loss (persistence=track only)

    /** Countdown of an armed power loss; 0 when none is armed. */
    private final java.util.concurrent.atomic.AtomicLong powerLossCountdown = new java.util.concurrent.atomic.AtomicLong();
    private volatile PowerLoss armedLoss;
    private volatile boolean poweredOff;
    private final java.util.concurrent.atomic.LongAdder mutations = new java.util.concurrent.atomic.LongAdder();

    private void requirePower() {
        if (poweredOff) {
            throw new DeviceException("emulated device '" + name + "' lost power (an injected crash): the machine is off until powerOn()");
        }
    }

    /** Counts a mutating access and, if it is the armed crash point, loses power before it happens. */
    private void strikeIfArmed() {
        requirePower();
        mutations.increment();
        PowerLoss loss = armedLoss;
        if (loss != null && powerLossCountdown.decrementAndGet() == 0) {
            armedLoss = null;
            poweredOff = true;
            lose(loss);
            throw new DeviceException("emulated device '" + name + "' lost power at an armed crash point");
        }
    }

    private long lose(PowerLoss loss) {
        return loss.torn() ? persistence.crashTorn(loss.seed()) : persistence.crash();
    }

    @Override
    public long powerLoss(PowerLoss loss) {
        requireTracking("powerLoss");
        requireOpen("powerLoss", 0);
        armedLoss = null;
        poweredOff = true;
        return lose(loss);
    }

    @Override
    public void armPowerLoss(long countdown, PowerLoss loss) {
        requireTracking("armPowerLoss");
        if (countdown < 1) {
            throw new DeviceException(ErrorClass.ARG, "emulated device '" + name + "': crash countdown " + countdown + " must be at least 1");
        }
        powerLossCountdown.set(countdown);
        armedLoss = java.util.Objects.requireNonNull(loss, "loss");
    }

    @Override
    public void disarm() {
        armedLoss = null;
    }

    @Override
    public boolean poweredOff() {
        return poweredOff;
    }

    @Override
    public void powerOn() {
        poweredOff = false;
    }

    @Override
    public long mutatingAccesses() {
        return mutations.sum();
    }

    private void requireAtomics(String operation, long offset) {
        if (!atomics) {
            throw new DeviceException(ErrorClass.UNSUPPORTED_OPERATION, "emulated device '" + name + "': " + operation
                    + " at offset " + offset + " needs ATOMIC_CAS, which this device does not declare (opened with atomics=false)");
        }
    }

    /** Every mutation passes here just after its store. */
    private void written(long offset, long length) {
        persistence.written(offset, length);
    }

    private void requireOpen(String operation, long offset) {
        if (closed) {
            throw closedError(operation, offset);
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

    private void requireTracking(String operation) {
        if (!persistence.tracks()) {
            throw new DeviceException(ErrorClass.UNSUPPORTED_OPERATION, "emulated device '" + name + "': " + operation
                    + " needs persistence tracking (opened with persistence=off)");
        }
    }

    /** An in-flight access failed: because the device was closed meanwhile, or for the caller's buffer. */
    private RuntimeException failed(String operation, long offset, IllegalStateException cause) {
        if (closed) {
            return new DeviceException(closedMessage(operation, offset), cause);
        }
        return cause;
    }

    private DeviceException closedError(String operation, long offset) {
        return new DeviceException(closedMessage(operation, offset));
    }

    private String closedMessage(String operation, long offset) {
        return DeviceAccessChecks.closedMessage(label, operation, offset);
    }
}
