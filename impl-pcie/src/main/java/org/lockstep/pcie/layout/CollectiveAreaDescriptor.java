package org.lockstep.pcie.layout;

/**
 * The collective area: where the device-native collectives of {@code org.lockstep.pcie.collective}
 * meet. It has {@link #COMMUNICATOR_SLOTS} communicator slots; the communicator whose context id is
 * {@code c} uses slot {@code c / 2} if there is one (context ids are agreed by all members and never
 * reused, so no two communicators that share a member share a slot), and the point-to-point
 * algorithms otherwise. A slot holds one block per world rank:
 *
 * <pre>
 *  slot s    +------------------------------------------+
 *            | block of world rank 0                    |
 *            +------------------------------------------+
 *            | block of world rank 1                    |
 *            |   ...                                    |
 *            +------------------------------------------+
 *
 *  block     +------------------------------------------+  0
 *            | arrival epoch (8)          own line      |  barriers this rank has entered
 *            +------------------------------------------+  64
 *            | published chunk (8)        own line      |  last chunk this rank wrote to its data area
 *            | inline half 0 (24) | inline half 1 (24)  |  the data of collectives of up to 24 bytes
 *            +------------------------------------------+  128
 *            | consumed chunk (8)         own line      |  last chunk this rank has finished with
 *            +------------------------------------------+  192
 *            | barrier counter (8)        own line      |  device CAS; used when this rank leads
 *            +------------------------------------------+  256
 *            | barrier release (8)        own line      |  the group (is its rank 0)
 *            +------------------------------------------+  320 = EXPOSED_OFFSET
 *            | exposed chunk (8) | source offset (8) |   |  device buffers this rank lets the others read
 *            | result offset (8) | length (8)            |  directly for that chunk (offset -1: none)
 *            +------------------------------------------+  384 = DATA_OFFSET
 *            | data area: 2 halves of chunkBytes        |  written only by this rank
 *            +------------------------------------------+
 * </pre>
 *
 * The exposed line serves the direct collectives, which read a member's own device buffers (its
 * {@code MPI_Alloc_mem} memory) instead of a copy in the data area: it is written before the
 * release store of the published chunk it names, and rewritten only once every member has
 * consumed that chunk.
 *
 * Every word but the barrier counter has one writer: the block's rank. The barrier counter and
 * release live in the block of the group's leader, so disjoint groups that share a context id
 * (the colors of one split) never share a word. Chunks are numbered per communicator (all members
 * count the same chunks); chunk {@code g} lives in half {@code g mod 2}, and a rank overwrites a half
 * only when every member has consumed the chunk before the one it will replace.
 */
public final class CollectiveAreaDescriptor {
    /** Communicators of a job that may use the device-native collectives. */
    public static final int COMMUNICATOR_SLOTS = 4;
    /** Worlds larger than this get no collective area (it would grow with the square of their size). */
    public static final int MAX_WORLD_SIZE = 64;

    public static final int ARRIVAL_OFFSET = 0;
    public static final int PUBLISHED_OFFSET = LayoutConstants.CACHE_LINE;
    /** Within the published line: where its two inline halves start. */
    public static final int INLINE_OFFSET = 8;
    /**
     * Bytes of one inline half. A collective of at most this many bytes keeps its data in the
     * published line, beside the word its readers watch, instead of in the data area.
     */
    public static final int INLINE_HALF_BYTES = 24;
    public static final int CONSUMED_OFFSET = 2 * LayoutConstants.CACHE_LINE;
    public static final int COUNTER_OFFSET = 3 * LayoutConstants.CACHE_LINE;
    public static final int RELEASE_OFFSET = 4 * LayoutConstants.CACHE_LINE;
    public static final int EXPOSED_OFFSET = 5 * LayoutConstants.CACHE_LINE;
    /** Within the exposed line: the chunk the line is for. */
    public static final int EXPOSED_CHUNK = 0;
    /** Within the exposed line: device offset of the member's source buffer, or -1. */
    public static final int EXPOSED_SOURCE = 8;
    /** Within the exposed line: device offset of the member's result buffer, or -1 (collectives that read no result). */
    public static final int EXPOSED_RESULT = 16;
    /** Within the exposed line: bytes exposed at each of the two offsets. */
    public static final int EXPOSED_LENGTH = 24;
    public static final int DATA_OFFSET = 6 * LayoutConstants.CACHE_LINE;

    /** Largest and smallest chunk: a chunk is 512 KiB divided by the world size, within these bounds. */
    public static final long MAX_CHUNK_BYTES = 64 << 10;
    public static final long MIN_CHUNK_BYTES = 4 << 10;
    private static final long CHUNK_BUDGET_BYTES = 512 << 10;

    private CollectiveAreaDescriptor() {
    }

    /** Bytes of one data-area half for a world of {@code worldSize} ranks (0 if the world has no area). */
    public static long chunkBytes(int worldSize) {
        if (worldSize > MAX_WORLD_SIZE) {
            return 0;
        }
        long chunk = Math.max(MIN_CHUNK_BYTES, Math.min(MAX_CHUNK_BYTES, CHUNK_BUDGET_BYTES / worldSize));
        return LayoutConstants.align(chunk, LayoutConstants.CACHE_LINE);
    }

    /** Bytes of one rank's block. */
    public static long blockLength(int worldSize) {
        return DATA_OFFSET + 2 * chunkBytes(worldSize);
    }

    /** Bytes of the whole area. */
    public static long areaLength(int worldSize) {
        return worldSize > MAX_WORLD_SIZE ? 0 : (long) COMMUNICATOR_SLOTS * worldSize * blockLength(worldSize);
    }
}
