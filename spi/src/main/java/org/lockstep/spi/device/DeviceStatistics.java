package org.lockstep.spi.device;

/**
 * Counters of a device since it was opened, as one consistent-enough snapshot (each counter is
 * read once; they are not read atomically together).
 */
public record DeviceStatistics(long bytesRead, long bytesWritten, long reads, long writes,
                               long persists, long bytesPersisted, long atomicOperations) {
    public static final DeviceStatistics NONE = new DeviceStatistics(0, 0, 0, 0, 0, 0, 0);
}
