package org.lockstep.pcie.layout;

/**
 * One of a rank's two checkpoint slots ({@link CheckpointAreaDescriptor}).
 *
 * <pre>
 *  +===============================================================+
 *  |                     epoch (8)                                 |  0
 *  +---------------------------------------------------------------+
 *  |                     body length (8)                           |  8
 *  +---------------------------------------------------------------+
 *  |                     CRC32C (8) of epoch, length and body      | 16
 *  +---------------------------------------------------------------+
 *  |                     incarnation that wrote it (8)             | 24
 *  |                     ... padding to 64 ...                     |
 *  +===============================================================+
 *  | body (all words little-endian longs):                         | 64
 *  |   transport:  n = world size                                  |
 *  |     per source s &lt; n: consumed prefix, k, then k sequence  |
 *  |                       numbers consumed above the prefix       |
 *  |     per destination d &lt; n: last sequence number sent       |
 *  |     next match-log position                                   |
 *  |   state:      m = registered segments                         |
 *  |     per segment: name length, name bytes (padded to 8),       |
 *  |                  byte length, bytes (padded to 8)             |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The body is checksummed, so that a slot damaged on the medium is detected rather than restored.
 */
public final class CheckpointSlotDescriptor {
    public static final int EPOCH_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int CHECKSUM_OFFSET = 16;
    public static final int INCARNATION_OFFSET = 24;
    public static final int BODY_OFFSET = LayoutConstants.CACHE_LINE;

    private CheckpointSlotDescriptor() {
    }
}
