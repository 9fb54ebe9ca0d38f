package org.lockstep.embsp.io;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts I/O volume (bytes) and operations (system calls or driver requests) per
 * {@link IoCategory}. Thread-safe; many meters may count the same operation (the run, its
 * superstep and the collective call it belongs to).
 */
public final class IoMeter {
    private static final IoCategory[] CATEGORIES = IoCategory.values();

    private final LongAdder[] bytes = new LongAdder[CATEGORIES.length];
    private final LongAdder[] operations = new LongAdder[CATEGORIES.length];

    public IoMeter() {
        for (int i = 0; i < CATEGORIES.length; i++) {
            bytes[i] = new LongAdder();
            operations[i] = new LongAdder();
        }
    }

    /** Counts one operation of {@code length} bytes. */
    public void count(IoCategory category, long length) {
        bytes[category.ordinal()].add(length);
        operations[category.ordinal()].increment();
    }

    public long bytes(IoCategory category) {
        return bytes[category.ordinal()].sum();
    }

    public long operations(IoCategory category) {
        return operations[category.ordinal()].sum();
    }

    /** Swap volume, in and out. */
    public long swapBytes() {
        return bytes(IoCategory.SWAP_IN) + bytes(IoCategory.SWAP_OUT);
    }

    /** Delivery volume, read and written. */
    public long deliveryBytes() {
        return bytes(IoCategory.DELIVERY_READ) + bytes(IoCategory.DELIVERY_WRITE);
    }

    /** All volume. */
    public long totalBytes() {
        return swapBytes() + deliveryBytes();
    }

    /** All operations. */
    public long totalOperations() {
        long total = 0;
        for (IoCategory c : CATEGORIES) {
            total += operations(c);
        }
        return total;
    }

    /** An immutable copy of the counts. */
    public IoSnapshot snapshot() {
        long[] b = new long[CATEGORIES.length];
        long[] o = new long[CATEGORIES.length];
        for (int i = 0; i < CATEGORIES.length; i++) {
            b[i] = bytes[i].sum();
            o[i] = operations[i].sum();
        }
        return new IoSnapshot(b, o);
    }
}
