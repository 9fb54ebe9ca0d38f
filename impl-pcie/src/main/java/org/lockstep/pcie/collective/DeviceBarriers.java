package org.lockstep.pcie.collective;

import static org.lockstep.pcie.layout.CollectiveAreaDescriptor.*;

import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * The barriers on the device ({@link DeviceCollectives} chooses one per communicator):
 * <ul>
 *   <li><b>flag barrier</b> (single-writer words only, any device): each rank writes its arrival
 *       epoch to its own line and waits until every member's line shows it.</li>
 *   <li><b>leader barrier</b>: every rank but the leader (rank 0) writes its arrival and watches
 *       the leader's release word, which the leader writes once it has seen every arrival.</li>
 *   <li><b>counter barrier</b> (devices with CAS): each rank adds one to the leader's counter; the
 *       rank that brings it to p·epoch writes the release word, which the others watch.</li>
 * </ul>
 */
final class DeviceBarriers {
    private final CollectiveArea area;
    private final ExternalMemory device;
    private final long leaderBlock;
    private long barrierEpoch;
    private long counterBarriers;

    DeviceBarriers(CollectiveArea area) {
        this.area = area;
        this.device = area.device;
        this.leaderBlock = area.block(0);
    }

    void flags() {
        long epoch = ++barrierEpoch;
        device.putLongRelease(area.block(area.rank) + ARRIVAL_OFFSET, epoch);
        for (int q = 0; q < area.size; q++) {
            if (q != area.rank) {
                area.awaitWord(area.block(q) + ARRIVAL_OFFSET, epoch, q, "barrier");
            }
        }
    }

    void leader() {
        long epoch = ++barrierEpoch;
        // the leader's arrival too: a member that sees a gone leader then knows whether it had arrived
        device.putLongRelease(area.block(area.rank) + ARRIVAL_OFFSET, epoch);
        if (area.rank == 0) {
            for (int q = 1; q < area.size; q++) {
                area.awaitWord(area.block(q) + ARRIVAL_OFFSET, epoch, q, "barrier");
            }
            device.putLongRelease(leaderBlock + RELEASE_OFFSET, epoch);
            return;
        }
        awaitRelease(epoch, epoch, true);
    }

    void counter() {
        long epoch = ++barrierEpoch;
        long target = ++counterBarriers * area.size;
        // The arrival word says, if a member fails, whether it had arrived.
        device.putLongRelease(area.block(area.rank) + ARRIVAL_OFFSET, epoch);
        long counted = device.getAndAddLong(leaderBlock + COUNTER_OFFSET, 1) + 1;
        if (counted == target) {
            device.putLongRelease(leaderBlock + RELEASE_OFFSET, counterBarriers);
            return;
        }
        awaitRelease(counterBarriers, epoch, false);
    }

    /**
     * Waits until the leader's release word reaches {@code release}; fails if a member that has not
     * arrived at barrier {@code epoch} is gone (the release would never come), or, when
     * {@code leaderReleases}, if the leader is gone (it arrived, but will not release).
     */
    private void awaitRelease(long release, long epoch, boolean leaderReleases) {
        CollectiveSite site = area.site;
        IdleStrategy idle = site.newIdleStrategy();
        int rounds = 0;
        while (device.getLongAcquire(leaderBlock + RELEASE_OFFSET) < release) {
            if (CollectiveArea.progressRound(++rounds)) {
                site.progress();
                for (int q = 0; q < area.size; q++) {
                    if (q != area.rank && site.isGone(q) && device.getLongAcquire(area.block(q) + ARRIVAL_OFFSET) < epoch
                            && device.getLongAcquire(leaderBlock + RELEASE_OFFSET) < release) {
                        throw site.failure(q, "barrier");
                    }
                }
                if (leaderReleases && site.isGone(0) && device.getLongAcquire(leaderBlock + RELEASE_OFFSET) < release) {
                    throw site.failure(0, "barrier");
                }
            }
            idle.idle();
        }
    }
}
