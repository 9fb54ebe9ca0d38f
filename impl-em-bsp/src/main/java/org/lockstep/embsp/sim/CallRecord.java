package org.lockstep.embsp.sim;

import org.lockstep.embsp.io.IoSnapshot;

/**
 * One collective call as the simulator accounted it: which operation, on how many VPs, the
 * largest message ω, the counted I/O, and two bounds from seed 003's analysis (see
 * {@code IoBounds}): one with the VPs' actual context sizes and message sizes, and the thesis's
 * form in terms of n, μ, ω and B. Fragments that found no room in the boundary-block cache cost a
 * read-modify-write of one block each, which the bounds allow for ({@code cacheMisses}). With
 * several real processors, one record per processor: its own I/O, and the frame bytes it sent for
 * the call against what the algorithm must send ({@code networkBoundBytes}); their sum is the
 * whole call's record, within its bound only if every processor's record was within its own
 * ({@code everyProcessorWithin}: a processor over its bound is not hidden by another under it).
 */
public record CallRecord(String operation, long group, long sequence, int participants, long omega, IoSnapshot counted,
                         long swapBoundBytes, long deliveryBoundBytes, long thesisBoundBytes, long cacheMisses,
                         long blockSize, double seconds, long networkBytes, long networkBoundBytes, boolean everyProcessorWithin) {
    /** This record with {@code counts} counted. */
    public CallRecord withCounted(IoSnapshot counts) {
        return new CallRecord(operation, group, sequence, participants, omega, counts, swapBoundBytes, deliveryBoundBytes,
                thesisBoundBytes, cacheMisses, blockSize, seconds, networkBytes, networkBoundBytes, everyProcessorWithin);
    }

    /** Allowance for read-modify-writes of uncached boundary blocks: one block read and one written each. */
    public long missAllowance() {
        return 2 * cacheMisses * blockSize;
    }

    /** The bound on all I/O of the call, with actual sizes. */
    public long boundBytes() {
        return swapBoundBytes + deliveryBoundBytes + missAllowance();
    }

    /**
     * Whether the counted I/O keeps within the bounds: swap and delivery each, the total within the
     * thesis's form, the network bytes within theirs — and, summed over processors, each one's own.
     */
    public boolean withinBound() {
        return everyProcessorWithin
                && counted.swapBytes() <= swapBoundBytes
                && counted.deliveryBytes() <= deliveryBoundBytes + missAllowance()
                && counted.totalBytes() <= thesisBoundBytes + missAllowance()
                && networkBytes <= networkBoundBytes;
    }
}
