package org.lockstep.embsp.comm;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import org.lockstep.embsp.io.IoMeter;
import org.lockstep.embsp.sim.CallRecord;

/**
 * What one collective call costs and may cost, kept apart from the algorithms that move the data:
 * the meter its VPs' I/O counts on while they are in the call, and the bound of seed 003's
 * analysis ({@link IoBounds}) built from what each algorithm declares it will do — a swap, a
 * pull, a push, a re-read. At the end it becomes the call's {@link CallRecord}.
 *
 * <p>The declaring methods are called under the scheduler's lock (the call's shared state).
 */
final class CallMeter {
    private final IoMeter counted = new IoMeter();
    private final long startNanos = System.nanoTime();
    private final long block;
    private long swapBound;
    private long deliveryBound;
    private long omega;
    private final LongAdder networkBytes = new LongAdder();
    private long networkBound;
    private long group;
    private boolean indirect;

    CallMeter(long block) {
        this.block = block;
    }

    /** The meter the VPs' I/O counts on while they are in the call. */
    IoMeter counted() {
        return counted;
    }

    /** A VP whose context holds {@code swapBytes} joined: it may be swapped out and in once. */
    void swapsOnce(long swapBytes) {
        swapBound += 2 * swapBytes;
    }

    /** A VP may read back {@code bytes} of its own context once more (Alltoallv's deferred messages). */
    void rereads(long bytes) {
        swapBound += bytes;
    }

    /** A message of {@code bytes} took part: ω is the largest. */
    void messageOf(long bytes) {
        omega = Math.max(omega, bytes);
    }

    /** Every VP but one pulls ω bytes from a context (rooted calls, reductions): set, not added, so every VP may say it. */
    void eachOtherPulls(int n, long bytes) {
        deliveryBound = (n - 1L) * IoBounds.pull(bytes, block);
    }

    /** The call delivers through PEMS1's indirect area: its thesis bound is PEMS1's. */
    void indirect() {
        indirect = true;
    }

    /** A message of {@code bytes} is written block-aligned into the indirect area and read back. */
    void writesAndReads(long bytes) {
        deliveryBound += 2 * IoBounds.roundUp(bytes, block);
    }

    /** One pull of {@code bytes} out of a context. */
    void pull(long bytes) {
        deliveryBound += IoBounds.pull(bytes, block);
    }

    /** One direct delivery of {@code bytes} into a context. */
    void push(long bytes) {
        deliveryBound += IoBounds.push(bytes, block);
    }

    /** Counts frame bytes this processor sent for the call. */
    void sent(long bytes) {
        networkBytes.add(bytes);
    }

    /**
     * {@code bytes} of message data must cross to another real processor, in frames of at most
     * {@code framePayload} bytes each (their headers are allowed for too).
     */
    void crosses(long bytes, long framePayload) {
        long frames = Math.max(1, -Math.floorDiv(-bytes, framePayload));
        networkBound += bytes + frames * org.lockstep.embsp.net.FrameLayout.HEADER_BYTES;
    }

    /** {@code frames} control frames with up to {@code payload} bytes each may cross. */
    void control(long frames, long payload) {
        networkBound += frames * (org.lockstep.embsp.net.FrameLayout.HEADER_BYTES + payload);
    }

    /** The call's group, for the record. */
    void group(long key) {
        group = key;
    }

    /** Bytes of the blocks that cover {@code ranges} ([from, to) offsets): what re-reading them costs. */
    long coveringBlocks(List<long[]> ranges) {
        return IoBounds.coveringBlocks(ranges, block);
    }

    /** The record of the finished call. */
    CallRecord record(String operation, long sequence, int n, long mu, long cacheMisses) {
        return new CallRecord(operation, group, sequence, n, omega, counted.snapshot(), swapBound, deliveryBound,
                IoBounds.thesis(indirect ? operation + "-indirect" : operation, n, mu, omega, block), cacheMisses, block, (System.nanoTime() - startNanos) / 1e9,
                networkBytes.sum(), networkBound, true);
    }
}
