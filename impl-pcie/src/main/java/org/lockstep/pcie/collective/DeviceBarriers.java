package org.lockstep.pcie.collective;

import static org.lockstep.pcie.layout.CollectiveAreaDescriptor.*;

/**
 * The barriers on the device ({@link DeviceCollectives} chooses one per communicator), each a
 * {@link DeviceOperation} that the blocking barrier runs to its end (one instance, rearmed for
 * each call) and the non-blocking one leaves to progress:
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
    private final long leaderBlock;
    private long barrierEpoch;
    private long counterBarriers;

    DeviceBarriers(CollectiveArea area) {
        this.area = area;
        this.leaderBlock = area.block(0);
    }

    DeviceOperation flags() {
        return new Flags();
    }

    DeviceOperation leader() {
        return new Leader();
    }

    DeviceOperation counter() {
        return new Counter();
    }

    /** Every barrier writes its arrival: a member that sees another gone then knows whether it had arrived. */
    private abstract class Barrier extends DeviceOperation {
        long epoch;

        Barrier() {
            super(DeviceBarriers.this.area);
        }

        @Override
        void begin() {
            epoch = ++barrierEpoch;
            area.putRelease(area.block(area.rank) + ARRIVAL_OFFSET, epoch);
        }

        /**
         * Whether the leader's release word has reached {@code release}; fails if a member that has
         * not arrived is gone (the release would never come), or, when {@code leaderReleases}, if
         * the leader is gone (it arrived, but will not release).
         */
        boolean released(long release, boolean leaderReleases) {
            if (area.getAcquire(leaderBlock + RELEASE_OFFSET) >= release) {
                return true;
            }
            if (watchNow()) {
                CollectiveSite site = area.site;
                for (int q = 0; q < area.size; q++) {
                    if (q != area.rank && site.isGone(q) && area.getAcquire(area.block(q) + ARRIVAL_OFFSET) < epoch
                            && area.getAcquire(leaderBlock + RELEASE_OFFSET) < release) {
                        throw site.failure(q, "barrier");
                    }
                }
                if (leaderReleases && site.isGone(0) && area.getAcquire(leaderBlock + RELEASE_OFFSET) < release) {
                    throw site.failure(0, "barrier");
                }
            }
            return false;
        }
    }

    private final class Flags extends Barrier {
        private int next = 1;

        @Override
        void rearm() {
            super.rearm();
            next = 1;
        }

        @Override
        boolean proceed() {
            next = reachedFrom(next, ARRIVAL_OFFSET, epoch, "barrier");
            return next == area.size;
        }
    }

    private final class Leader extends Barrier {
        private int next = 1;

        @Override
        void rearm() {
            super.rearm();
            next = 1;
        }

        @Override
        boolean proceed() {
            if (area.rank != 0) {
                return released(epoch, true);
            }
            next = reachedFrom(next, ARRIVAL_OFFSET, epoch, "barrier");
            if (next < area.size) {
                return false;
            }
            area.putRelease(leaderBlock + RELEASE_OFFSET, epoch);
            return true;
        }
    }

    private final class Counter extends Barrier {
        private long release;
        private boolean last;

        @Override
        void rearm() {
            super.rearm();
            last = false;
        }

        @Override
        void begin() {
            super.begin();
            release = ++counterBarriers;
            long counted = device.getAndAddLong(leaderBlock + COUNTER_OFFSET, 1) + 1;
            if (counted == release * area.size) {
                area.putRelease(leaderBlock + RELEASE_OFFSET, release);
                last = true;
            }
        }

        @Override
        boolean proceed() {
            return last || released(release, false);
        }
    }
}
