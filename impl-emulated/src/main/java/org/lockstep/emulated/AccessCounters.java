package org.lockstep.emulated;

import java.util.concurrent.atomic.LongAdder;

import org.lockstep.spi.device.DeviceStatistics;

/**
 * The counters of one device. {@link LongAdder}s, because every rank's thread counts on the hot
 * path and a single shared word would become the most contended line of the emulator.
 */
final class AccessCounters {
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder reads = new LongAdder();
    private final LongAdder writes = new LongAdder();
    private final LongAdder persists = new LongAdder();
    private final LongAdder bytesPersisted = new LongAdder();
    private final LongAdder atomicOperations = new LongAdder();

    void read(long bytes) {
        reads.increment();
        bytesRead.add(bytes);
    }

    void written(long bytes) {
        writes.increment();
        bytesWritten.add(bytes);
    }

    void persisted(long bytes) {
        persists.increment();
        bytesPersisted.add(bytes);
    }

    void atomic() {
        atomicOperations.increment();
    }

    DeviceStatistics snapshot() {
        return new DeviceStatistics(bytesRead.sum(), bytesWritten.sum(), reads.sum(), writes.sum(),
                persists.sum(), bytesPersisted.sum(), atomicOperations.sum());
    }
}
