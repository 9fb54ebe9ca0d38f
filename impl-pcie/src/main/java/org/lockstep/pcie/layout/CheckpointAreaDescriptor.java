package org.lockstep.pcie.layout;

/**
 * A rank's part of the checkpoint area (present only when the job checkpoints). Everything in it
 * is written by that rank alone; other ranks read its release cursors and its log directory.
 *
 * <pre>
 *  +===============================================================+  rank's area, block aligned
 *  |                committed epoch (8): published last            |  0
 *  |                ... padding to 64 ...                          |
 *  +===============================================================+
 *  |  release cursor of sender 0 (8) | ... | of sender n-1 (8)      | 64
 *  |  ... padding to a cache line ...                              |     RELEASE_CURSORS
 *  +===============================================================+
 *  |  log ring tail to dest 0 (8) | ... | to dest n-1 (8)          |     this rank's log rings
 *  |  ... padding to a cache line ...                              |     {@link LogRingDescriptor}
 *  +===============================================================+
 *  |  match log: matchLogEntries entries of 32 bytes               |     wildcard matches, a ring
 *  |  +-----------------+-----------------+----------+----------+  |
 *  |  | position (8)    | source (8)      | seq (8)  | check (8)|  |
 *  |  +-----------------+-----------------+----------+----------+  |
 *  +===============================================================+
 *  |  log directory: logEntries words of 8: heap block offset of a |     this rank's retained
 *  |  logged message this rank sent (0 = free entry)               |     messages
 *  +===============================================================+  block aligned
 *  |  checkpoint slot A (epochs 2, 4, ...)  {@link CheckpointSlotDescriptor}   |
 *  +===============================================================+  block aligned
 *  |  checkpoint slot B (epochs 1, 3, ...)                         |
 *  +===============================================================+
 * </pre>
 *
 * <p><b>Commit.</b> Checkpoint {@code e} is written into slot {@code e mod 2} — the one the
 * committed epoch does not point at — and persisted; only then is {@code e} stored into the
 * committed-epoch word (one aligned 8-byte store, never torn) and persisted. A crash before that
 * store leaves checkpoint {@code e - 1} committed and intact; the checksum in the slot catches a
 * damaged image. Then, and only then, the release cursors advance.
 *
 * <p><b>Release cursors.</b> Word {@code s} is the highest sequence number from sender {@code s}
 * up to which this rank's committed checkpoint has consumed every message: sender {@code s} may
 * reclaim its logged messages to this rank up to there, since no restart of this rank can need
 * them again.
 *
 * <p><b>Match log.</b> Entry {@code p} (position {@code p}, 0-based, in ring entry
 * {@code p mod matchLogEntries}) says the {@code p}-th wildcard receive of this rank matched the
 * message with sequence number {@code seq} from {@code source}. The check word (a hash of the
 * other three) tells a written entry from a torn or stale one. A checkpoint records the next
 * position, which truncates the log: entries before it are never read again.
 *
 * <p><b>Log directory.</b> With checkpoints every message is logged: its payload and a self-
 * describing header go into the sender's heap ({@link LoggedBlockDescriptor}) and are persisted.
 * Most go into the sender's log ring to their destination ({@link LogRingDescriptor}), which needs
 * no directory; a block too large for its ring is allocated from the heap instead, and its offset
 * is stored into a free directory word and persisted before the slot is published. The word is
 * cleared (and persisted) before the block is reused. A restarted rank finds every message that
 * may still matter — the ones it sent, to rebuild its rings and heap and to drop re-sends, and the
 * ones sent to it, to replay them — by walking log rings and reading directories.
 */
public final class CheckpointAreaDescriptor {
    public static final int COMMITTED_EPOCH_OFFSET = 0;
    public static final int RELEASE_CURSORS_OFFSET = LayoutConstants.CACHE_LINE;

    public static final int MATCH_ENTRY_LENGTH = 32;
    public static final int MATCH_POSITION_OFFSET = 0;
    public static final int MATCH_SOURCE_OFFSET = 8;
    public static final int MATCH_SEQUENCE_OFFSET = 16;
    public static final int MATCH_CHECK_OFFSET = 24;

    public static final int DIRECTORY_ENTRY_LENGTH = Long.BYTES;

    private CheckpointAreaDescriptor() {
    }

    /** The check word of a match-log entry. */
    public static long matchCheck(long position, long source, long sequence) {
        long h = position * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        h = (h ^ (h >>> 31) ^ source) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 29) ^ sequence) * 0x94D049BB133111EBL;
        return h ^ (h >>> 32) | 1; // never 0, so a zeroed entry never checks
    }
}
