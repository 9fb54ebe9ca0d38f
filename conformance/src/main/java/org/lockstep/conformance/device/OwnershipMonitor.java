package org.lockstep.conformance.device;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.lockstep.spi.device.ExternalMemory;

/**
 * Watches who owns which line of a device, without knowing the layout on it. A thread that
 * writes a line owns it until it publishes — performs any release store, volatile store or atomic
 * update, which is how the mailbox protocol hands memory over. Another thread that writes the line
 * meanwhile is a second owner: mutual exclusion of the hand-off is broken (two senders in one
 * slot, a receiver writing where the sender still writes). A release store, volatile store or
 * atomic update is itself a write that publishes at once.
 *
 * <p>Writes by the thread that opened the device (formatting it before any rank runs) are not
 * counted. Each line's last writer is kept, so the check costs a map update per written line.
 */
public final class OwnershipMonitor extends ForwardingMemory {
    /** Granularity of ownership: one cache line, the unit the protocol gives a single writer. */
    public static final int LINE = 64;
    private static final int MAX_KEPT = 20;

    private record Owner(long threadId, String threadName, long epoch, String what) {
    }

    private final Thread opener = Thread.currentThread();
    private final ConcurrentHashMap<Long, Owner> lastWriter = new ConcurrentHashMap<>();
    /** Per thread, how many publishing operations it has done: an owner whose count moved on has published. */
    private final ConcurrentHashMap<Long, AtomicLong> epochs = new ConcurrentHashMap<>();
    private final List<String> violations = new ArrayList<>();
    private long violationCount;

    public OwnershipMonitor(ExternalMemory device) {
        super(device);
    }

    /** What went wrong, oldest first (at most the first {@value #MAX_KEPT}). */
    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    public synchronized long violationCount() {
        return violationCount;
    }

    private AtomicLong epochOf(Thread t) {
        return epochs.computeIfAbsent(t.threadId(), id -> new AtomicLong());
    }

    /** The epoch of an owner whose write published itself (a release, volatile or atomic store): never open. */
    private static final long PUBLISHED = -1;

    /**
     * Records a write of {@code [offset, offset + length)} by the calling thread. A publishing write
     * first closes the thread's earlier writes (before the store itself happens, so that whoever sees
     * the store also sees them closed), then owns its line only as published.
     */
    private void wrote(long offset, long length, String what, boolean publishes) {
        Thread t = Thread.currentThread();
        if (t == opener || length <= 0) {
            return;
        }
        AtomicLong epoch = epochOf(t);
        if (publishes) {
            epoch.incrementAndGet();
        }
        long mine = publishes ? PUBLISHED : epoch.get();
        for (long line = offset / LINE, last = (offset + length - 1) / LINE; line <= last; line++) {
            Owner previous = lastWriter.put(line, new Owner(t.threadId(), t.getName(), mine, what));
            if (previous != null && previous.threadId() != t.threadId() && previous.epoch() != PUBLISHED) {
                AtomicLong previousEpoch = epochs.get(previous.threadId());
                if (previousEpoch != null && previousEpoch.get() == previous.epoch()) {
                    violation("line at offset " + line * LINE + ": " + t.getName() + " wrote it (" + what + ") while "
                            + previous.threadName() + " still owned it (its " + previous.what() + " was not yet published)");
                }
            }
        }
    }

    /** Closes the calling thread's open writes ahead of an atomic update that will publish them. */
    private void publishing() {
        if (Thread.currentThread() != opener) {
            epochOf(Thread.currentThread()).incrementAndGet();
        }
    }

    private synchronized void violation(String text) {
        violationCount++;
        if (violations.size() < MAX_KEPT) {
            violations.add(text);
        }
    }

    @Override
    public void write(long offset, MemorySegment source, long sourceOffset, long length) {
        super.write(offset, source, sourceOffset, length);
        wrote(offset, length, "write of " + length + " bytes at " + offset, false);
    }

    @Override
    public void fill(long offset, long length, byte value) {
        super.fill(offset, length, value);
        wrote(offset, length, "fill of " + length + " bytes at " + offset, false);
    }

    @Override
    public void putLong(long offset, long value) {
        super.putLong(offset, value);
        wrote(offset, Long.BYTES, "putLong at " + offset, false);
    }

    @Override
    public void putInt(long offset, int value) {
        super.putInt(offset, value);
        wrote(offset, Integer.BYTES, "putInt at " + offset, false);
    }

    @Override
    public void putLongRelease(long offset, long value) {
        wrote(offset, Long.BYTES, "putLongRelease at " + offset, true);
        super.putLongRelease(offset, value);
    }

    @Override
    public void putLongVolatile(long offset, long value) {
        wrote(offset, Long.BYTES, "putLongVolatile at " + offset, true);
        super.putLongVolatile(offset, value);
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long value) {
        publishing();
        boolean swapped = super.compareAndSetLong(offset, expected, value);
        if (swapped) {
            wrote(offset, Long.BYTES, "compareAndSetLong at " + offset, true);
        }
        return swapped;
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        publishing();
        long previous = super.getAndAddLong(offset, delta);
        wrote(offset, Long.BYTES, "getAndAddLong at " + offset, true);
        return previous;
    }

    @Override
    public void persist(long offset, long length) {
        publishing();
        super.persist(offset, length);
    }
}
