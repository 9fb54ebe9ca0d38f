package org.lockstep.spi.device;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.lockstep.api.ErrorClass;

/**
 * The skeleton of an {@link ExternalMemory} whose bytes are a {@link MemorySegment} of a shared
 * {@link Arena} (the {@code java.nio.channels.spi} pattern): every public operation is a
 * {@code final} template that checks (open, in bounds, aligned where the SPI says so, the caller's
 * buffer), calls the device's {@code impl…} hook before and after, accesses the memory, and turns
 * an access that failed because the device was closed meanwhile into a {@link DeviceException}.
 * {@link #close()} closes the arena, which the FFM runtime makes safe against threads that access
 * the device at that moment. A device supplies its persistence and, if it likes, a latency model,
 * fault injection or extra fences in the hooks; the checks and their messages are the same for
 * every device ({@link DeviceAccessChecks}).
 */
public abstract class AbstractExternalMemory implements ExternalMemory {
    private static final VarHandle WORD_HANDLE = ValueLayout.JAVA_LONG.varHandle();
    private static final ValueLayout.OfLong UNALIGNED_LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt UNALIGNED_INT = ValueLayout.JAVA_INT_UNALIGNED;
    /** How long {@link #close()} waits for calls that hold the memory (native code given {@link #asSegment()}). */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String name;
    /** How messages name this device, e.g. {@code "mapped device '/dev/shm/x'"}. */
    private final String label;
    private final long capacity;
    private final int blockSize;
    private final Set<DeviceCapability> capabilities;
    private final boolean atomics;
    private final Arena arena;
    /** The device's bytes: every access goes through this. */
    private final MemorySegment memory;
    /** This process's counts of accesses to the device. */
    protected final DeviceCounters counters = new DeviceCounters();
    private volatile boolean closed;

    /**
     * A device named {@code name} (its messages say {@code label}) over {@code memory}, the first
     * {@code capacity} bytes of which it owns, allocated or mapped in {@code arena}.
     */
    protected AbstractExternalMemory(String name, String label, long capacity, int blockSize, Set<DeviceCapability> capabilities,
                                     Arena arena, MemorySegment memory) {
        this.name = name;
        this.label = label;
        this.capacity = capacity;
        this.blockSize = blockSize;
        this.capabilities = capabilities;
        this.atomics = capabilities.contains(DeviceCapability.ATOMIC_CAS);
        this.arena = arena;
        this.memory = memory;
    }

    // ------------------------------------------------------------------ the hooks

    /** Before a read of {@code length} bytes, after its checks: counts it (a device may also delay it). */
    protected void implStartRead(long length) {
        counters.read(length);
    }

    /** Before a mutation of {@code length} bytes at {@code offset} (an atomic one if {@code atomic}), after its checks: counts it. */
    protected void implStartWrite(long offset, long length, boolean atomic) {
        if (atomic) {
            counters.atomic();
        } else {
            counters.written(length);
        }
    }

    /** After a mutation has stored {@code length} bytes at {@code offset}. */
    protected void implWritten(long offset, long length) {
    }

    /** Just before an ordered (release or volatile) store: a device whose stores need a stronger fence adds it here. */
    protected void implBeforeOrderedStore() {
    }

    /** {@link #persist}, after its checks; an access that fails because the device closed meanwhile may throw {@link IllegalStateException}. */
    protected abstract void implPersist(long offset, long length);

    /** Why this device has no atomics, ending the message of an atomic access to it, e.g. "this device does not declare (...)". */
    protected abstract String implNoAtomicsReason();

    /** What may make an access fault (the JVM's {@link InternalError}, e.g. SIGBUS), ending the message of the {@link DeviceException} it becomes. */
    protected String implFaultReason() {
        return "the memory behind the device failed";
    }

    /**
     * Whether {@link #region}s of this device may reach its memory directly: its hooks do nothing
     * their word accesses need except {@link #implBeforeOrderedStore()} (which a direct region
     * calls) and counting (which a direct region leaves out, as {@link #asSegment()} does). False
     * by default: a device that delays, tracks or injects faults sees every access.
     */
    protected boolean implDirectRegions() {
        return false;
    }

    /** After {@link #close()} has released the memory (a mapped file may be removed here). */
    protected void implClosed() {
    }

    // ------------------------------------------------------------------ what the device is

    @Override
    public final String name() {
        return name;
    }

    /** How messages name this device. */
    protected final String label() {
        return label;
    }

    @Override
    public final long capacity() {
        return capacity;
    }

    @Override
    public final int blockSize() {
        return blockSize;
    }

    @Override
    public final Set<DeviceCapability> capabilities() {
        return capabilities;
    }

    /**
     * The memory. Accesses through it bypass the counters and checks of this device; after
     * {@link #close()} they throw {@link IllegalStateException}.
     */
    @Override
    public final MemorySegment asSegment() {
        requireOpen("asSegment", 0);
        return memory;
    }

    /** A region checked once now (open, in the device, 8-byte aligned start): direct if {@link #implDirectRegions()} says so. */
    @Override
    public final WordRegion region(long offset, long length) {
        requireOpen("region", offset);
        WordRegion.checkRange(label, capacity, offset, length);
        return implDirectRegions() ? WordRegion.direct(this, offset, length, memory) : WordRegion.through(this, offset, length);
    }

    @Override
    public final DeviceStatistics statistics() {
        return counters.snapshot();
    }

    /** Whether {@link #close()} has been called. */
    public final boolean isClosed() {
        return closed;
    }

    // ------------------------------------------------------------------ accesses

    @Override
    public final void read(long offset, MemorySegment target, long targetOffset, long length) {
        check("read", offset, length);
        DeviceAccessChecks.requireBuffer(label, "read", target, targetOffset, length, true);
        implStartRead(length);
        try {
            MemorySegment.copy(memory, offset, target, targetOffset, length);
        } catch (IllegalStateException e) {
            throw failed("read", offset, e);
        } catch (InternalError e) {
            throw faulted("read", offset, e);
        }
    }

    @Override
    public final void write(long offset, MemorySegment source, long sourceOffset, long length) {
        check("write", offset, length);
        DeviceAccessChecks.requireBuffer(label, "write", source, sourceOffset, length, false);
        implStartWrite(offset, length, false);
        try {
            MemorySegment.copy(source, sourceOffset, memory, offset, length);
            implWritten(offset, length);
        } catch (IllegalStateException e) {
            throw failed("write", offset, e);
        } catch (InternalError e) {
            throw faulted("write", offset, e);
        }
    }

    @Override
    public final void fill(long offset, long length, byte value) {
        check("fill", offset, length);
        implStartWrite(offset, length, false);
        try {
            memory.asSlice(offset, length).fill(value);
            implWritten(offset, length);
        } catch (IllegalStateException e) {
            throw failed("fill", offset, e);
        } catch (InternalError e) {
            throw faulted("fill", offset, e);
        }
    }

    @Override
    public final long getLong(long offset) {
        check("getLong", offset, Long.BYTES);
        implStartRead(Long.BYTES);
        try {
            return memory.get(UNALIGNED_LONG, offset);
        } catch (IllegalStateException e) {
            throw failed("getLong", offset, e);
        } catch (InternalError e) {
            throw faulted("getLong", offset, e);
        }
    }

    @Override
    public final void putLong(long offset, long value) {
        check("putLong", offset, Long.BYTES);
        implStartWrite(offset, Long.BYTES, false);
        try {
            memory.set(UNALIGNED_LONG, offset, value);
            implWritten(offset, Long.BYTES);
        } catch (IllegalStateException e) {
            throw failed("putLong", offset, e);
        } catch (InternalError e) {
            throw faulted("putLong", offset, e);
        }
    }

    @Override
    public final int getInt(long offset) {
        check("getInt", offset, Integer.BYTES);
        implStartRead(Integer.BYTES);
        try {
            return memory.get(UNALIGNED_INT, offset);
        } catch (IllegalStateException e) {
            throw failed("getInt", offset, e);
        } catch (InternalError e) {
            throw faulted("getInt", offset, e);
        }
    }

    @Override
    public final void putInt(long offset, int value) {
        check("putInt", offset, Integer.BYTES);
        implStartWrite(offset, Integer.BYTES, false);
        try {
            memory.set(UNALIGNED_INT, offset, value);
            implWritten(offset, Integer.BYTES);
        } catch (IllegalStateException e) {
            throw failed("putInt", offset, e);
        } catch (InternalError e) {
            throw faulted("putInt", offset, e);
        }
    }

    @Override
    public final long getLongAcquire(long offset) {
        checkWord("getLongAcquire", offset);
        implStartRead(Long.BYTES);
        try {
            return (long) WORD_HANDLE.getAcquire(memory, offset);
        } catch (IllegalStateException e) {
            throw failed("getLongAcquire", offset, e);
        } catch (InternalError e) {
            throw faulted("getLongAcquire", offset, e);
        }
    }

    @Override
    public final void putLongRelease(long offset, long value) {
        checkWord("putLongRelease", offset);
        implStartWrite(offset, Long.BYTES, false);
        try {
            implBeforeOrderedStore();
            WORD_HANDLE.setRelease(memory, offset, value);
            implWritten(offset, Long.BYTES);
        } catch (IllegalStateException e) {
            throw failed("putLongRelease", offset, e);
        } catch (InternalError e) {
            throw faulted("putLongRelease", offset, e);
        }
    }

    @Override
    public final long getLongVolatile(long offset) {
        checkWord("getLongVolatile", offset);
        implStartRead(Long.BYTES);
        try {
            return (long) WORD_HANDLE.getVolatile(memory, offset);
        } catch (IllegalStateException e) {
            throw failed("getLongVolatile", offset, e);
        } catch (InternalError e) {
            throw faulted("getLongVolatile", offset, e);
        }
    }

    @Override
    public final void putLongVolatile(long offset, long value) {
        checkWord("putLongVolatile", offset);
        implStartWrite(offset, Long.BYTES, false);
        try {
            implBeforeOrderedStore();
            WORD_HANDLE.setVolatile(memory, offset, value);
            implWritten(offset, Long.BYTES);
        } catch (IllegalStateException e) {
            throw failed("putLongVolatile", offset, e);
        } catch (InternalError e) {
            throw faulted("putLongVolatile", offset, e);
        }
    }

    @Override
    public final boolean compareAndSetLong(long offset, long expected, long value) {
        requireAtomics("compareAndSetLong", offset);
        checkWord("compareAndSetLong", offset);
        implStartWrite(offset, Long.BYTES, true);
        try {
            boolean swapped = WORD_HANDLE.compareAndSet(memory, offset, expected, value);
            if (swapped) {
                implWritten(offset, Long.BYTES);
            }
            return swapped;
        } catch (IllegalStateException e) {
            throw failed("compareAndSetLong", offset, e);
        } catch (InternalError e) {
            throw faulted("compareAndSetLong", offset, e);
        }
    }

    @Override
    public final long getAndAddLong(long offset, long delta) {
        requireAtomics("getAndAddLong", offset);
        checkWord("getAndAddLong", offset);
        implStartWrite(offset, Long.BYTES, true);
        try {
            long previous = (long) WORD_HANDLE.getAndAdd(memory, offset, delta);
            implWritten(offset, Long.BYTES);
            return previous;
        } catch (IllegalStateException e) {
            throw failed("getAndAddLong", offset, e);
        } catch (InternalError e) {
            throw faulted("getAndAddLong", offset, e);
        }
    }

    @Override
    public final void persist(long offset, long length) {
        check("persist", offset, length);
        try {
            implPersist(offset, length);
        } catch (IllegalStateException e) {
            throw failed("persist", offset, e);
        } catch (InternalError e) {
            throw faulted("persist", offset, e);
        }
    }

    // ------------------------------------------------------------------ closing

    /**
     * Releases the memory (then {@link #implClosed()}). Threads that access the device meanwhile
     * get a {@link DeviceException}; a second close does nothing.
     *
     * @throws DeviceException if native code holds the memory for 10 s
     */
    @Override
    public final void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // New accesses now fail on the state check; in-flight ones fail inside the arena's close.
        // Calls that hold the memory (an msync, native code given asSegment()) make close wait.
        long start = System.nanoTime();
        while (true) {
            try {
                arena.close();
                break;
            } catch (IllegalStateException stillAcquired) {
                if (System.nanoTime() - start > CLOSE_WAIT_NANOS) {
                    throw new DeviceException(label + ": cannot release its memory: " + stillAcquired.getMessage(), stillAcquired);
                }
                Thread.onSpinWait();
            }
        }
        implClosed();
    }

    // ------------------------------------------------------------------ checks

    /** Throws unless the device is open. */
    protected final void requireOpen(String operation, long offset) {
        if (closed) {
            throw new DeviceException(DeviceAccessChecks.closedMessage(label, operation, offset));
        }
    }

    /** Throws unless the device is open and {@code [offset, offset + length)} lies in it. */
    protected final void check(String operation, long offset, long length) {
        requireOpen(operation, offset);
        DeviceAccessChecks.requireInBounds(label, operation, offset, length, capacity);
    }

    private void checkWord(String operation, long offset) {
        check(operation, offset, Long.BYTES);
        DeviceAccessChecks.requireAligned(label, operation, offset);
    }

    private void requireAtomics(String operation, long offset) {
        if (!atomics) {
            throw new DeviceException(ErrorClass.UNSUPPORTED_OPERATION, label + ": " + operation + " at offset " + offset
                    + " needs ATOMIC_CAS, which " + implNoAtomicsReason());
        }
    }

    /** An access faulted: the JVM turned a fault of the memory (SIGBUS) into an {@link InternalError}. */
    final DeviceException faulted(String operation, long offset, InternalError cause) {
        return new DeviceException(label + ": " + operation + " at offset " + offset + " faulted: " + implFaultReason()
                + " (" + cause.getMessage() + ")", cause);
    }

    /** An in-flight access failed: because the device was closed meanwhile, or for the caller's buffer. */
    protected final RuntimeException failed(String operation, long offset, IllegalStateException cause) {
        if (closed) {
            return new DeviceException(DeviceAccessChecks.closedMessage(label, operation, offset), cause);
        }
        return cause;
    }
}
