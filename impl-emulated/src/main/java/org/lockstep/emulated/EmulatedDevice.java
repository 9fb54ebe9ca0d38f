package org.lockstep.emulated;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.AbstractExternalMemory;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceException;
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
 * <p>Every access follows the one path of {@link AbstractExternalMemory}, so that counting, delays
 * and fault injection have one place: it is checked (open, in bounds, aligned), then started
 * ({@link #implStartRead}, {@link #implStartWrite}: delayed and counted), then performed; every
 * mutation then passes {@link #implWritten} (where the persistence tracker marks the lines dirty). Accesses outside the
 * device, misaligned atomic words and accesses after {@link #close()} throw
 * {@link DeviceException}; closing while other threads access the device is safe (the shared
 * arena's close makes their in-flight accesses fail, which surfaces as a {@link DeviceException}).
 *
 * <p>Counting: {@code read}/{@code get*} count as reads, {@code write}/{@code fill}/{@code put*}
 * as writes (bytes as transferred); compare-and-set and get-and-add count as atomic operations
 * only; a persist counts the bytes it was asked to persist.
 */
public final class EmulatedDevice extends AbstractExternalMemory implements org.lockstep.spi.device.CrashInjectable {
    /** Bytes per persistence line: persisting any byte of a line persists the whole line. */
    public static final int PERSISTENCE_LINE_BYTES = PersistenceTracker.LINE_BYTES;

    private final String name;
    private final PersistenceTracker persistence;
    /** Whether persistence is tracked, and so power loss can be injected. */
    private final boolean track;
    private final LatencyModel latency;

    /** The memory of a new device and what tracks its persistence. */
    private record Allocation(Arena arena, MemorySegment memory, PersistenceTracker persistence) {
    }

    /**
     * Allocates (zeroed) memory of {@code capacity} bytes.
     *
     * @throws DeviceException with {@link ErrorClass#NO_MEM} if the memory cannot be had
     */
    EmulatedDevice(String name, long capacity, int blockSize, EmulatedDeviceOptions options) {
        this(name, capacity, blockSize, options, allocate(name, capacity, blockSize, options));
    }

    private EmulatedDevice(String name, long capacity, int blockSize, EmulatedDeviceOptions options, Allocation allocation) {
        super(name, "emulated device '" + name + "'", capacity, blockSize, capabilities(options), allocation.arena(),
                allocation.memory());
        this.name = name;
        this.latency = LatencyModel.of(options);
        this.track = options.persistence() == EmulatedDeviceOptions.Persistence.TRACK;
        this.persistence = allocation.persistence();
    }

    private static Allocation allocate(String name, long capacity, int blockSize, EmulatedDeviceOptions options) {
        if (capacity <= 0) {
            throw new DeviceException(ErrorClass.ARG, "emulated device '" + name + "': capacity must be positive, got " + capacity);
        }
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1) {
            throw new DeviceException(ErrorClass.ARG, "emulated device '" + name + "': block size must be a power of two, got " + blockSize);
        }
        boolean track = options.persistence() == EmulatedDeviceOptions.Persistence.TRACK;
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = arena.allocate(capacity, Math.max(blockSize, PERSISTENCE_LINE_BYTES));
            return new Allocation(arena, memory, track ? PersistenceTracker.tracking(arena, memory) : PersistenceTracker.untracked());
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            arena.close();
            DeviceException noMemory = new DeviceException(ErrorClass.NO_MEM, "emulated device '" + name + "': cannot allocate "
                    + capacity + " bytes" + (track ? " (twice that, plus a dirty map, with persistence=track)" : "")
                    + ": " + e.getMessage() + " (off-heap memory is limited by -XX:MaxDirectMemorySize, default the heap size)");
            noMemory.initCause(e); // DeviceException has no (ErrorClass, String, Throwable) constructor
            throw noMemory;
        }
    }

    private static Set<DeviceCapability> capabilities(EmulatedDeviceOptions options) {
        EnumSet<DeviceCapability> declared = EnumSet.noneOf(DeviceCapability.class);
        if (options.atomics()) {
            declared.add(DeviceCapability.ATOMIC_CAS);
        }
        if (options.persistence() == EmulatedDeviceOptions.Persistence.TRACK) {
            declared.add(DeviceCapability.PERSISTENT);
            declared.add(DeviceCapability.CRASH_INJECTION);
        }
        if (options.latencyModelled()) {
            declared.add(DeviceCapability.LATENCY_MODEL);
        }
        return Collections.unmodifiableSet(declared);
    }

    /**
     * Copies the written lines of {@code [offset, offset + length)} to the durable image (whole
     * lines of {@link #PERSISTENCE_LINE_BYTES}); with {@code persistence=off} it only orders the
     * writes. Costs the model's latency, not its bandwidth.
     */
    @Override
    protected void implPersist(long offset, long length) {
        if (track) {
            strikeIfArmed();
        }
        latency.delay(0);
        counters.persisted(length);
        persistence.persist(offset, length);
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

    @Override
    public String toString() {
        return "EmulatedDevice[" + name + ", capacity=" + capacity() + ", blockSize=" + blockSize()
                + ", capabilities=" + capabilities() + (isClosed() ? ", closed" : "") + "]";
    }

    // ---- the access path (AbstractExternalMemory): check, then start (delay and count), then access;
    // a mutation then reports what it wrote. implStartWrite and implWritten are the two points every mutation passes.

    @Override
    protected void implStartRead(long length) {
        if (track) {
            requirePower();
        }
        latency.delay(length);
        counters.read(length);
    }

    /** Every mutation passes here just before its store, after its checks (fault injection hooks in here). */
    @Override
    protected void implStartWrite(long offset, long length, boolean atomic) {
        if (track) {
            strikeIfArmed();
        }
        latency.delay(length);
        super.implStartWrite(offset, length, atomic);
    }

    /** Every mutation passes here just after its store. */
    @Override
    protected void implWritten(long offset, long length) {
        persistence.written(offset, length);
    }

    @Override
    protected String implNoAtomicsReason() {
        return "this device does not declare (opened with atomics=false)";
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

    private void requireTracking(String operation) {
        if (!persistence.tracks()) {
            throw new DeviceException(ErrorClass.UNSUPPORTED_OPERATION, "emulated device '" + name + "': " + operation
                    + " needs persistence tracking (opened with persistence=off)");
        }
    }

}
