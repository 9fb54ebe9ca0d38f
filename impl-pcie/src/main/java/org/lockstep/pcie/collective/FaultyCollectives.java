package org.lockstep.pcie.collective;

/**
 * The compatibility kit's deliberate breakages of the device collectives
 * ({@link CollectiveSite.Faults}), installed in place of the correct families only when its
 * self-test asks for them, so that its rules can show they catch these bugs. Never for
 * production; the algorithms themselves test no fault flag.
 */
final class FaultyCollectives {
    private FaultyCollectives() {
    }

    /** {@code DIRECT_FOLD_REVERSED}: the direct allreduce folds each segment from rank 0's input up: c(p−1) op (… op c0). */
    static final class ReversedFold extends DeviceAllreduces {
        ReversedFold(CollectiveArea area) {
            super(area);
        }

        @Override
        int foldedMember(int k) {
            return area.size - 1 - k;
        }
    }

    /** {@code SHARED_BCAST_SKIPS_LAST_PIECE}: the shared broadcast leaves out the last piece of every receive buffer. */
    static final class SkippedLastPiece extends DeviceBroadcasts {
        SkippedLastPiece(CollectiveArea area) {
            super(area);
        }

        @Override
        long pieceLength(long length) {
            return area.rank == area.size - 1 ? 0 : length;
        }
    }

    /** {@code BCAST_READS_UNPUBLISHED}: the broadcast written once reads the root's chunk without waiting for it to be published. */
    static final class ReadsUnpublished extends DeviceBroadcasts {
        ReadsUnpublished(CollectiveArea area) {
            super(area);
        }

        @Override
        boolean awaitsPublication() {
            return false;
        }
    }
}
