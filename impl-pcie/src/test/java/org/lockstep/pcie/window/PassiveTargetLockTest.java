package org.lockstep.pcie.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lockstep.pcie.layout.DeviceWindowDescriptor;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/** The passive-target lock's device words, stepped by one thread as several ranks of a 130-rank window. */
class PassiveTargetLockTest {
    private static final int RANKS = 130;
    private static final long HEADER = 0;
    private ExternalMemory device;

    @BeforeEach
    void open() {
        device = DeviceProviders.open(DeviceSpec.of("emulated", 4096));
    }

    @AfterEach
    void close() {
        device.close();
    }

    private PassiveTargetLock rank(int r) {
        return new PassiveTargetLock(device, r, RANKS);
    }

    @Test
    void anExclusiveLockWaitsForEachSharedHolderByNameAcrossHolderWords() {
        rank(64).lockShared(HEADER, failIfCalled());
        rank(127).lockShared(HEADER, failIfCalled());
        List<Integer> waitedFor = new ArrayList<>();
        rank(0).lockExclusive(HEADER, (holder, stillInTheWay) -> {
            waitedFor.add(holder);
            rank(holder).unlockShared(HEADER); // the holder lets go while it is waited for
        });
        assertEquals(List.of(64, 127), waitedFor);
        assertEquals(1, device.getLongVolatile(HEADER + DeviceWindowDescriptor.EXCLUSIVE_LOCK_OFFSET), "rank 0 holds it");
    }

    @Test
    void aSharedLockThatMeetsAGoneExclusiveHolderFailsAndLeavesNoBitSet() {
        rank(5).lockExclusive(HEADER, failIfCalled());
        IllegalStateException gone = new IllegalStateException("rank 5 is gone");
        List<Integer> waitedFor = new ArrayList<>();
        assertSame(gone, assertThrows(IllegalStateException.class, () -> rank(70).lockShared(HEADER, (holder, stillInTheWay) -> {
            waitedFor.add(holder);
            throw gone;
        })));
        assertEquals(List.of(5), waitedFor);
        assertEquals(0, device.getLongVolatile(HEADER + DeviceWindowDescriptor.SHARED_HOLDERS_OFFSET + Long.BYTES),
                "rank 70's shared bit is cleared");
    }

    @Test
    void anExclusiveLockThatMeetsAGoneSharedHolderFailsAndGivesTheLockBack() {
        rank(129).lockShared(HEADER, failIfCalled());
        IllegalStateException gone = new IllegalStateException("rank 129 is gone");
        assertSame(gone, assertThrows(IllegalStateException.class, () -> rank(3).lockExclusive(HEADER, (holder, stillInTheWay) -> {
            assertEquals(129, holder);
            throw gone;
        })));
        assertEquals(0, device.getLongVolatile(HEADER + DeviceWindowDescriptor.EXCLUSIVE_LOCK_OFFSET));
        rank(129).unlockShared(HEADER);
        rank(7).lockExclusive(HEADER, failIfCalled());
    }

    @Test
    void sharedHoldersShareAndAnExclusiveHolderKeepsThemOut() {
        rank(1).lockShared(HEADER, failIfCalled());
        rank(63).lockShared(HEADER, failIfCalled());
        rank(1).unlockShared(HEADER);
        rank(63).unlockShared(HEADER);
        rank(2).lockExclusive(HEADER, failIfCalled());
        List<Integer> waitedFor = new ArrayList<>();
        rank(100).lockShared(HEADER, (holder, stillInTheWay) -> {
            waitedFor.add(holder);
            rank(2).unlockExclusive(HEADER);
        });
        assertEquals(List.of(2), waitedFor);
    }

    private static PassiveTargetLock.HolderWait failIfCalled() {
        return (holder, stillInTheWay) -> {
            throw new AssertionError("waited for rank " + holder + " though the lock was free");
        };
    }
}
