package org.lockstep.pcie.window;

import static org.lockstep.pcie.layout.DeviceWindowDescriptor.EXCLUSIVE_LOCK_OFFSET;
import static org.lockstep.pcie.layout.DeviceWindowDescriptor.SHARED_HOLDERS_OFFSET;

import java.util.function.BooleanSupplier;

import org.lockstep.pcie.layout.DeviceWindowDescriptor;
import org.lockstep.spi.device.ExternalMemory;

/**
 * MPI's passive-target lock on one rank's part of a device window, as the words of
 * {@link DeviceWindowDescriptor}: an exclusive-holder word and a bit per rank for shared holders.
 *
 * <p>Exclusive: compare-and-set the holder word from 0 to this rank + 1, then wait until no shared
 * bit is set. Shared: set this rank's bit, then read the holder word; if a rank holds it, clear the
 * bit, wait until the word changes, and try again. Each side writes its own word before it reads
 * the other's, both sequentially consistent, so an exclusive and a shared holder never both enter.
 * Each wait knows whom it waits for: a holder that has gone would never let go, and the wait fails
 * instead of lasting for ever.
 */
final class PassiveTargetLock {
    /** What a lock does between two looks at a holder in its way. */
    interface HolderWait {
        /**
         * One round of waiting for world-window rank {@code holder}: serve this rank's frames, then
         * back off; throws PROC_FAILED if {@code holder} is gone while {@code stillInTheWay} holds.
         */
        void round(int holder, BooleanSupplier stillInTheWay);
    }

    private final ExternalMemory device;
    private final int rank;
    private final int holderWords;

    PassiveTargetLock(ExternalMemory device, int rank, int ranks) {
        this.device = device;
        this.rank = rank;
        this.holderWords = DeviceWindowDescriptor.sharedHolderWords(ranks);
    }

    void lockExclusive(long header, HolderWait wait) {
        long word = header + EXCLUSIVE_LOCK_OFFSET;
        while (!device.compareAndSetLong(word, 0, rank + 1)) {
            awaitChange(word, wait);
        }
        try {
            // shared holders that came first let go; those that come later see this word and back off
            for (int w = 0; w < holderWords; w++) {
                long bits = header + SHARED_HOLDERS_OFFSET + (long) Long.BYTES * w;
                long set;
                while ((set = device.getLongVolatile(bits)) != 0) {
                    int holder = w * Long.SIZE + Long.numberOfTrailingZeros(set);
                    long bit = Long.lowestOneBit(set);
                    wait.round(holder, () -> (device.getLongVolatile(bits) & bit) != 0);
                }
            }
        } catch (RuntimeException gone) {
            device.putLongRelease(word, 0);
            throw gone;
        }
    }

    void lockShared(long header, HolderWait wait) {
        long word = header + EXCLUSIVE_LOCK_OFFSET;
        long bits = sharedBits(header);
        long bit = sharedBit();
        while (true) {
            device.getAndAddLong(bits, bit); // only this rank sets or clears its bit: an add is an atomic set
            if (device.getLongVolatile(word) == 0) {
                return;
            }
            device.getAndAddLong(bits, -bit);
            awaitChange(word, wait);
        }
    }

    void unlockExclusive(long header) {
        device.putLongRelease(header + EXCLUSIVE_LOCK_OFFSET, 0);
    }

    void unlockShared(long header) {
        device.getAndAddLong(sharedBits(header), -sharedBit());
    }

    /** Waits while the exclusive holder {@code word} names stays there. */
    private void awaitChange(long word, HolderWait wait) {
        long holder = device.getLongVolatile(word);
        while (holder != 0 && device.getLongVolatile(word) == holder) {
            wait.round((int) holder - 1, () -> device.getLongVolatile(word) == holder);
        }
    }

    private long sharedBits(long header) {
        return header + SHARED_HOLDERS_OFFSET + (long) Long.BYTES * (rank / Long.SIZE);
    }

    private long sharedBit() {
        return 1L << (rank % Long.SIZE);
    }
}
