package org.lockstep.emulated;

/**
 * Delays an access by {@code latency + bytes / bandwidth}, busy-waiting: the delays it models
 * (tens of microseconds per access, seed 001's DSSD figure) are far shorter than a park's wake-up
 * jitter, and a real device keeps the issuing core busy too.
 */
final class LatencyModel {
    private static final double NANOS_PER_SECOND = 1e9;

    /** A model that never delays. */
    static final LatencyModel NONE = new LatencyModel(0, 0);

    private final long latencyNanos;
    private final double nanosPerByte;
    private final boolean delays;

    /**
     * @param latencyNanos            fixed delay of every access
     * @param bandwidthBytesPerSecond transfer rate; 0 means unlimited
     */
    LatencyModel(long latencyNanos, long bandwidthBytesPerSecond) {
        this.latencyNanos = latencyNanos;
        this.nanosPerByte = bandwidthBytesPerSecond == 0 ? 0 : NANOS_PER_SECOND / bandwidthBytesPerSecond;
        this.delays = latencyNanos > 0 || bandwidthBytesPerSecond > 0;
    }

    static LatencyModel of(EmulatedDeviceOptions options) {
        return options.latencyModelled() ? new LatencyModel(options.latencyNanos(), options.bandwidthBytesPerSecond()) : NONE;
    }

    /** The delay an access of {@code bytes} bytes costs, in nanoseconds. */
    long delayNanos(long bytes) {
        double total = latencyNanos + bytes * nanosPerByte;
        return total >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) total;
    }

    /** Busy-waits for the delay of an access of {@code bytes} bytes. */
    void delay(long bytes) {
        if (!delays) {
            return;
        }
        long nanos = delayNanos(bytes);
        long start = System.nanoTime();
        while (System.nanoTime() - start < nanos) {
            Thread.onSpinWait();
        }
    }
}
