package org.lockstep.pcie.layout;

/**
 * A sender's log ring to one destination (only when the job checkpoints): the upper half of the
 * sender's heap partition is cut into one ring per destination ({@link MailboxLayout#logRing}).
 * Logged blocks ({@link LoggedBlockDescriptor}) are appended at the head in sequence order and
 * reclaimed from the tail in the same order once the destination's release cursor has passed
 * them, so a ring needs no allocator and no directory: it is a message log in the plain sense.
 *
 * <pre>
 *  ring start                                                               ring end
 *  +--------+------------+------------+-----+--------------+--------+----------------+
 *  | free   | block s    | block s+1  | ... | block s+k    | free   | wrap marker    |
 *  +--------+------------+------------+-----+--------------+--------+----------------+
 *           ^ tail (persisted word, {@link MailboxLayout#logRingTailAddress})
 *                                                          ^ head (in memory only)
 * </pre>
 *
 * <p>A block that does not fit before the ring's end goes to its start; a wrap marker — a header
 * line whose destination is {@link #WRAP_DESTINATION}, whose sequence number is that of the block
 * at the start and whose block length reaches the end of the ring — says so, unless the head was
 * exactly at the end.
 *
 * <p><b>Commit.</b> A block's payload and header are written and persisted, then its check word,
 * which is persisted last: a valid check names a complete block. The tail word is persisted before
 * a block behind its old value is committed (a payload may be written there earlier: until its
 * check word is, no walk takes it for a block).
 *
 * <p><b>Walk.</b> A restarted rank finds the blocks of a ring by walking from the persisted tail:
 * each block must check, name the ring's destination, lie inside the ring and carry a higher
 * sequence number than the block before it. The walk stops at the first block that does not —
 * the head, where the next block was being written or an older lap's block lies.
 */
public final class LogRingDescriptor {
    /** The destination field of a wrap marker. */
    public static final int WRAP_DESTINATION = -1;

    private LogRingDescriptor() {
    }
}
