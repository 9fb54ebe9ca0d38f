package org.lockstep.embsp.io;

/**
 * Where the v contexts of μ bytes live on D disks of block size B; disk space is exactly v·μ
 * (seed 003 §6.3: no indirect area).
 *
 * <pre>
 *  contiguous (k ≥ D, or memory-mapped): VP t is one run on disk t mod D
 *
 *    disk 0: | ctx 0 | ctx D   | ctx 2D  | ...        each ctx = μ bytes
 *    disk 1: | ctx 1 | ctx D+1 | ctx 2D+1| ...
 *
 *  striped (k &lt; D): the v·μ bytes are one address space cut into blocks of B,
 *  dealt round-robin to the disks (RAID-0, the STXXL block layer)
 *
 *    logical block g = (t·μ + offset) / B   →   disk g mod D, file offset (g div D)·B
 *    disk 0: | g0 | gD | g2D | ...
 *    disk 1: | g1 | gD+1 | ...
 * </pre>
 *
 * With k ≥ D and VPs run in id order, each round of k VPs touches all D disks; with k &lt; D only
 * striping spreads a swap over all of them.
 */
public final class DiskLayout {
    /** Receives the pieces of a context range: {@code length} bytes at {@code filePosition} of {@code disk}, {@code rangeOffset} bytes into the range. */
    @FunctionalInterface
    public interface ExtentConsumer {
        void accept(int disk, long filePosition, long rangeOffset, long length);
    }

    private final int vps;
    private final int disks;
    private final long contextSize;
    private final long blockSize;
    private final boolean striped;

    public DiskLayout(int vps, int disks, long contextSize, long blockSize, boolean striped) {
        if (contextSize % blockSize != 0) {
            throw new IllegalArgumentException("context size " + contextSize + " is not a multiple of the block size " + blockSize);
        }
        this.vps = vps;
        this.disks = disks;
        this.contextSize = contextSize;
        this.blockSize = blockSize;
        this.striped = striped && disks > 1;
    }

    public boolean striped() {
        return striped;
    }

    public int disks() {
        return disks;
    }

    /** The size of disk {@code d}'s file; the sizes add up to v·μ. */
    public long diskBytes(int d) {
        if (striped) {
            long blocks = (long) vps * (contextSize / blockSize);
            long mine = blocks / disks + (d < blocks % disks ? 1 : 0);
            return mine * blockSize;
        }
        long contexts = vps / disks + (d < vps % disks ? 1 : 0);
        return contexts * contextSize;
    }

    /** The disk that holds VP {@code vp}'s context (contiguous layout only). */
    public int diskOf(int vp) {
        if (striped) {
            throw new IllegalStateException("a striped context spans every disk");
        }
        return vp % disks;
    }

    /** File position of VP {@code vp}'s context start (contiguous layout only). */
    public long contextStart(int vp) {
        if (striped) {
            throw new IllegalStateException("a striped context has no single start");
        }
        return (long) (vp / disks) * contextSize;
    }

    /** Calls {@code consumer} for each piece of bytes {@code [offset, offset + length)} of VP {@code vp}'s context, in order. */
    public void forEachExtent(int vp, long offset, long length, ExtentConsumer consumer) {
        if (offset < 0 || length < 0 || offset + length > contextSize) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + (offset + length) + ") is outside a context of "
                    + contextSize + " bytes");
        }
        if (length == 0) {
            return;
        }
        if (!striped) {
            consumer.accept(vp % disks, contextStart(vp) + offset, 0, length);
            return;
        }
        long global = (long) vp * contextSize + offset;
        long done = 0;
        while (done < length) {
            long at = global + done;
            long block = at / blockSize;
            long within = at % blockSize;
            long piece = Math.min(blockSize - within, length - done);
            consumer.accept((int) (block % disks), (block / disks) * blockSize + within, done, piece);
            done += piece;
        }
    }
}
