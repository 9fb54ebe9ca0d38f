package org.lockstep.embsp.io;

/** Counts of an {@link IoMeter} at one moment: bytes and operations indexed by {@link IoCategory#ordinal()}. */
public record IoSnapshot(long[] bytes, long[] operations) {
    public IoSnapshot {
        bytes = bytes.clone();
        operations = operations.clone();
    }

    public long bytes(IoCategory category) {
        return bytes[category.ordinal()];
    }

    public long operations(IoCategory category) {
        return operations[category.ordinal()];
    }

    public long swapBytes() {
        return bytes(IoCategory.SWAP_IN) + bytes(IoCategory.SWAP_OUT);
    }

    public long deliveryBytes() {
        return bytes(IoCategory.DELIVERY_READ) + bytes(IoCategory.DELIVERY_WRITE);
    }

    public long totalBytes() {
        return swapBytes() + deliveryBytes();
    }

    public long totalOperations() {
        long total = 0;
        for (long o : operations) {
            total += o;
        }
        return total;
    }
}
