package org.lockstep.spi.collective;

/**
 * The tag of a point-to-point message that belongs to a collective, on the collective channel.
 *
 * <pre>
 *  bit 31 30 29                                12 11                 0
 *     +--+--+------------------------------------+--------------------+
 *     | 0| 1|  call sequence (18 bits, wraps)    |  step (12 bits)    |
 *     +--+--+------------------------------------+--------------------+
 * </pre>
 *
 * <ul>
 *   <li>bit 31 is clear: a tag is never negative;</li>
 *   <li>bit 30 is set, so that tags below 2<sup>30</sup> are never used by a collective: a
 *       provider may use those on the channel for its own protocol (agreeing on context ids, say),
 *       and one without a separate collective context can leave them to applications;</li>
 *   <li>the <em>call sequence</em> counts the collectives started on the channel. Every rank starts
 *       collectives on a communicator in the same order (MPI's rule), so ranks agree on it without
 *       talking, and messages of two collectives in flight at once (non-blocking ones) never match
 *       each other's receives;</li>
 *   <li>the <em>step</em> tells apart the phases of one algorithm. Steps beyond 4095 wrap; messages
 *       that then share a tag still match in order, because messages between one pair of ranks do
 *       not overtake each other and every algorithm posts its receives in step order.</li>
 * </ul>
 */
final class CollectiveTag {
    static final int COLLECTIVE_BIT = 1 << 30;
    static final int STEP_BITS = 12;
    static final int STEP_MASK = (1 << STEP_BITS) - 1;
    static final int SEQUENCE_BITS = 18;
    static final int SEQUENCE_MASK = (1 << SEQUENCE_BITS) - 1;

    private CollectiveTag() {
    }

    /** The part of every tag of call number {@code sequence}. */
    static int base(long sequence) {
        return COLLECTIVE_BIT | (int) ((sequence & SEQUENCE_MASK) << STEP_BITS);
    }

    /** The tag of {@code step} in the call whose base is {@code base}. */
    static int of(int base, int step) {
        if (step < 0) {
            throw new IllegalArgumentException("negative collective step " + step);
        }
        return base | (step & STEP_MASK);
    }
}
