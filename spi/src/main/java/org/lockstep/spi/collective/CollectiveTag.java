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
 *
 * <p>A provider whose transport bounds tags lower (a native MPI's {@code MPI_TAG_UB} may be as low
 * as 2<sup>15</sup> - 1; MPICH's is 2<sup>28</sup> - 1) folds a channel's tags into its bound with
 * {@link #fold}.
 */
public final class CollectiveTag {
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

    /**
     * The tag a transport whose largest tag is {@code tagUpperBound} carries for {@code tag} of a
     * collective channel: tags within the bound stay; a collective tag keeps its step and as much of
     * its call sequence as fits below the bound's top bit, which takes the collective bit's place.
     *
     * <pre>
     *  2^w - 1 <= tagUpperBound: bit w-1      w-2              12 11          0
     *                           +---+------------------------+---------------+
     *                           | 1 | call sequence (w-13 b) |  step (12 b)  |
     *                           +---+------------------------+---------------+
     * </pre>
     *
     * The sequence then wraps after 2<sup>w-13</sup> calls (32768 under MPICH's bound) instead of
     * 2<sup>18</sup>: collectives in flight at once on one channel must stay fewer than that. The
     * channel's other tags (a provider's own protocol) must then stay below 2<sup>w-1</sup>.
     *
     * @throws IllegalArgumentException for a tag above the bound that is not a collective tag, or a
     *         bound too small to hold a step and one bit of sequence
     */
    public static int fold(int tag, int tagUpperBound) {
        if (tag <= tagUpperBound) {
            return tag;
        }
        if ((tag & COLLECTIVE_BIT) == 0) {
            throw new IllegalArgumentException("tag " + tag + " is above the bound " + tagUpperBound + " and no collective tag");
        }
        int width = 31 - Integer.numberOfLeadingZeros(tagUpperBound + 1); // the most bits that all stay within the bound
        if (width < STEP_BITS + 2) {
            throw new IllegalArgumentException("a tag bound of " + tagUpperBound + " cannot hold a collective's step and sequence");
        }
        int top = 1 << (width - 1);
        return top | (tag & (top - 1));
    }

    /** The tag of {@code step} in the call whose base is {@code base}. */
    static int of(int base, int step) {
        if (step < 0) {
            throw new IllegalArgumentException("negative collective step " + step);
        }
        return base | (step & STEP_MASK);
    }
}
