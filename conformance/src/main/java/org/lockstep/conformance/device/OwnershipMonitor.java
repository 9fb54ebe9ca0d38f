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
 * <p>It also checks that every claim taken with compare-and-set has a single owner (see
 * {@link ClaimWords}): two parties that both moved one word from the same value in overlapping
 * calls, with no write in between to put that value back, hold one claim twice — the two owners
 * of one asynchronous-mailbox ticket that a non-atomic compare-and-set lets in.
 *
 * <p>Writes by the thread that opened the device (formatting it before any rank runs) are not
 * counted as owning lines. Each line's last writer is kept, so the check costs a map update per written line.
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
    private final ClaimWords claims = new ClaimWords(this::violation);

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
        List<ClaimWords.Call> calls = claims.writing(offset, length);
        try {
            super.write(offset, source, sourceOffset, length);
        } finally {
            ClaimWords.returned(calls);
        }
        wrote(offset, length, "write of " + length + " bytes at " + offset, false);
    }

    @Override
    public void fill(long offset, long length, byte value) {
        List<ClaimWords.Call> calls = claims.writing(offset, length);
        try {
            super.fill(offset, length, value);
        } finally {
            ClaimWords.returned(calls);
        }
        wrote(offset, length, "fill of " + length + " bytes at " + offset, false);
    }

    @Override
    public void putLong(long offset, long value) {
        List<ClaimWords.Call> calls = claims.writing(offset, Long.BYTES);
        try {
            super.putLong(offset, value);
        } finally {
            ClaimWords.returned(calls);
        }
        wrote(offset, Long.BYTES, "putLong at " + offset, false);
    }

    @Override
    public void putInt(long offset, int value) {
        List<ClaimWords.Call> calls = claims.writing(offset, Integer.BYTES);
        try {
            super.putInt(offset, value);
        } finally {
            ClaimWords.returned(calls);
        }
        wrote(offset, Integer.BYTES, "putInt at " + offset, false);
    }

    @Override
    public void putLongRelease(long offset, long value) {
        wrote(offset, Long.BYTES, "putLongRelease at " + offset, true);
        List<ClaimWords.Call> calls = claims.writing(offset, Long.BYTES);
        try {
            super.putLongRelease(offset, value);
        } finally {
            ClaimWords.returned(calls);
        }
    }

    @Override
    public void putLongVolatile(long offset, long value) {
        wrote(offset, Long.BYTES, "putLongVolatile at " + offset, true);
        List<ClaimWords.Call> calls = claims.writing(offset, Long.BYTES);
        try {
            super.putLongVolatile(offset, value);
        } finally {
            ClaimWords.returned(calls);
        }
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long value) {
        publishing();
        ClaimWords.Call call = claims.compareAndSet(offset, expected, value);
        boolean swapped = true; // a call that throws is taken as a write: it can only hide a violation, never invent one
        try {
            swapped = super.compareAndSetLong(offset, expected, value);
        } finally {
            call.returned(swapped);
        }
        if (swapped) {
            wrote(offset, Long.BYTES, "compareAndSetLong at " + offset, true);
        }
        return swapped;
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        publishing();
        List<ClaimWords.Call> calls = claims.writing(offset, Long.BYTES);
        long previous;
        try {
            previous = super.getAndAddLong(offset, delta);
        } finally {
            ClaimWords.returned(calls);
        }
        wrote(offset, Long.BYTES, "getAndAddLong at " + offset, true);
        return previous;
    }

    @Override
    public void persist(long offset, long length) {
        publishing();
        super.persist(offset, length);
    }
}
