package org.lockstep.bench;

import java.lang.foreign.Arena;
import java.util.EnumSet;

import org.lockstep.spi.device.AbstractExternalMemory;
import org.lockstep.spi.device.DeviceCapability;

/**
 * A device over plain process memory for the benchmarks: the SPI's skeleton with every check and
 * counter of a real device, direct ring regions as a mapped device has, and nothing else (no latency model, no persistence bookkeeping), so
 * that a benchmark measures the transport's code and not an emulation.
 */
final class BenchDevice extends AbstractExternalMemory {
    BenchDevice(long capacity) {
        this(capacity, Arena.ofShared());
    }

    private BenchDevice(long capacity, Arena arena) {
        super("bench", "benchmark device", capacity, 64, EnumSet.of(DeviceCapability.ATOMIC_CAS), arena, arena.allocate(capacity, 4096));
    }

    /** As a mapped device: the rings' regions reach the memory directly. */
    @Override
    protected boolean implDirectRegions() {
        return true;
    }

    @Override
    protected void implPersist(long offset, long length) {
        // process memory: nothing to make durable
    }

    @Override
    protected String implNoAtomicsReason() {
        return "it has them";
    }
}
