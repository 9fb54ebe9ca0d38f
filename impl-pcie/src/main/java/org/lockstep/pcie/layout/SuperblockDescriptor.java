package org.lockstep.pcie.layout;

/**
 * The superblock at offset 0 of a Lockstep device: what the device holds and how it is laid out,
 * so that an attaching process can tell a device formatted for its job from a blank, foreign,
 * older or corrupt one.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     magic "LOCKSTEP" (8 bytes)                |  0
 *  +-------------------------------+-------------------------------+
 *  |        layout version         |          world size           |  8
 *  +-------------------------------+-------------------------------+
 *  |                     capacity (bytes, 8)                       | 16
 *  +---------------------------------------------------------------+
 *  |                     job key (8)                               | 24
 *  +-------------------------------+-------------------------------+
 *  |      slots per mailbox        |     inline capacity (bytes)   | 32
 *  +-------------------------------+-------------------------------+
 *  |    async slots per receiver   |            flags              | 40
 *  +-------------------------------+-------------------------------+
 *  |                     heap bytes per rank (8)                   | 48
 *  +---------------------------------------------------------------+
 *  |                     header checksum (8) of bytes 0..55        | 56
 *  +===============================================================+
 *  |                     format state (8), own cache line          | 64
 *  +---------------------------------------------------------------+
 *  |  formatter: process id (22 bits) | start ms mod 2^41; 0 = none | 72
 *  +---------------------------------------------------------------+
 *  |                     checkpoint bytes per rank (8), 0 = none   | 80
 *  +---------------------------------------------------------------+
 *  |                     checksum (8) of bytes 80..87              | 88
 *  +---------------------------------------------------------------+
 *  |                     owner: job key of the job that removes it | 96
 *  +---------------------------------------------------------------+
 *  |                     reserved (8)                              | 104
 *  +---------------------------------------------------------------+
 *  |                     formatter's host identity (8)             | 112
 *  +---------------------------------------------------------------+
 *  |                     ... reserved to the end of the block ...  |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The format state goes {@link #FORMAT_BLANK} → {@link #FORMAT_IN_PROGRESS} (claimed by one
 * formatter) → {@link #FORMAT_READY}; the header fields are written before the release store of
 * {@code READY}, so a reader that sees {@code READY} with acquire sees the whole header.
 *
 * <p>The formatter's process (id, start time, host) lets a waiting rank tell a formatter that
 * died half way from a slow one, and take the format over. The formatter word holds the process
 * id and start time together ({@link FormatterProcess#word()}): a new formatter compares-and-sets
 * it to take over (a dead formatter's format, or the device of a job that has ended), so that
 * exactly one does, and no reader pairs one formatter's id with another's start time. The host
 * word is written before the formatter word. The owner word names the job whose last rank out
 * removes the device file: set only for a file made for that job and not to be kept; 0 otherwise
 * (never removed by ranks).
 */
public final class SuperblockDescriptor {
    /** "LOCKSTEP" in ASCII, little-endian. */
    public static final long MAGIC = 0x504554534b434f4cL;
    /**
     * 6: the formatter's process (id and start time at 72, host at 112) and the owner word at 96.
     * Earlier: 5 an exposed-buffers line in every block of the collective area; 4 log rings in the
     * upper half of each heap partition and their tails in the checkpoint area; 3 a collective area
     * between the asynchronous mailboxes and the heap, the checkpoint area and its superblock
     * field, bytes 80..95.
     */
    public static final int LAYOUT_VERSION = 6;

    public static final int MAGIC_OFFSET = 0;
    public static final int LAYOUT_VERSION_OFFSET = 8;
    public static final int WORLD_SIZE_OFFSET = 12;
    public static final int CAPACITY_OFFSET = 16;
    public static final int JOB_KEY_OFFSET = 24;
    public static final int SLOTS_PER_MAILBOX_OFFSET = 32;
    public static final int INLINE_CAPACITY_OFFSET = 36;
    public static final int ASYNC_SLOTS_OFFSET = 40;
    public static final int FLAGS_OFFSET = 44;
    public static final int HEAP_BYTES_PER_RANK_OFFSET = 48;
    public static final int CHECKSUM_OFFSET = 56;
    /** Bytes covered by the checksum. */
    public static final int CHECKSUMMED_LENGTH = 56;

    public static final int FORMAT_STATE_OFFSET = 64;
    public static final int FORMATTER_OFFSET = 72;

    public static final int CHECKPOINT_BYTES_PER_RANK_OFFSET = 80;
    public static final int CHECKPOINT_CHECKSUM_OFFSET = 88;

    public static final int OWNER_JOB_KEY_OFFSET = 96;
    public static final int FORMATTER_HOST_OFFSET = 112;

    public static final long FORMAT_BLANK = 0;
    public static final long FORMAT_IN_PROGRESS = 1;
    public static final long FORMAT_READY = 2;

    /** Flag: the transport uses the asynchronous mailboxes (needs device CAS). */
    public static final int FLAG_ASYNC_MAILBOXES = 1;
    /** Flag: the job checkpoints; every message is logged and the device has a checkpoint area. */
    public static final int FLAG_CHECKPOINTS = 2;
    /**
     * Flag: the formatter's host has fewer cores than the job has ranks. The device collectives
     * choose their algorithms by it, so that every rank makes the same choice whatever host it
     * runs on (each rank's waits still back off by its own host).
     */
    public static final int FLAG_RANKS_SHARE_CORES = 4;

    /** Bytes the superblock occupies before rounding up to the device block. */
    public static final int LENGTH = 128;

    private SuperblockDescriptor() {
    }
}
