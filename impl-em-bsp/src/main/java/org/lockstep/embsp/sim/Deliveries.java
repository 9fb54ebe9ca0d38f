package org.lockstep.embsp.sim;

import java.util.ArrayDeque;

import org.lockstep.embsp.io.IoHandle;

/**
 * A VP's delivery writes in flight: at most α at once (seed 003 §6.4), each holding a read lock
 * on its receiver's context (so the receiver cannot change residency under it) and, if its data
 * went through the staging buffer, a staging slot. The VP retires them oldest first, and must
 * {@link #drain()} before it waits or swaps.
 */
public final class Deliveries {
    private record InFlight(IoHandle handle, int slot, Context held) {
    }

    private final Partition partition;
    private final int alpha;
    private final ArrayDeque<InFlight> queue = new ArrayDeque<>();
    private final boolean[] busy;

    public Deliveries(Partition partition, int alpha) {
        this.partition = partition;
        this.alpha = Math.max(1, alpha);
        this.busy = new boolean[partition.writeSlots() + 1];
    }

    /** A free staging slot for a write (retiring the oldest writes until one is free); 0 if the staging buffer has no write slots. */
    public int acquireSlot() {
        if (partition.writeSlots() == 0) {
            return 0;
        }
        while (true) {
            for (int s = 1; s < busy.length; s++) {
                if (!busy[s]) {
                    busy[s] = true;
                    return s;
                }
            }
            retireOldest();
        }
    }

    /**
     * Adds a write in flight; {@code held} is the receiver context whose read lock the caller took
     * for it (released when the write retires), {@code slot} its staging slot or -1.
     */
    public void add(IoHandle handle, int slot, Context held) {
        if (slot == 0) {
            // the synchronous slot cannot stay busy: finish at once
            try {
                handle.await();
            } finally {
                held.lock().readLock().unlock();
            }
            return;
        }
        queue.add(new InFlight(handle, slot, held));
        while (queue.size() > alpha) {
            retireOldest();
        }
    }

    /** Whether any write is in flight. */
    public boolean busy() {
        return !queue.isEmpty();
    }

    /**
     * Takes a read lock on {@code context}; if that would block while this VP holds read locks in
     * flight, first drains them, so that lock waits never form a cycle.
     */
    public void lockForAccess(Context context) {
        if (queue.isEmpty()) {
            context.lock().readLock().lock();
            return;
        }
        if (!context.lock().readLock().tryLock()) {
            drain();
            context.lock().readLock().lock();
        }
    }

    /** Waits for every write in flight. */
    public void drain() {
        RuntimeException first = null;
        while (!queue.isEmpty()) {
            try {
                retireOldest();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void retireOldest() {
        InFlight oldest = queue.poll();
        try {
            oldest.handle.await();
        } finally {
            if (oldest.slot > 0) {
                busy[oldest.slot] = false;
            }
            oldest.held.lock().readLock().unlock();
        }
    }
}
