package org.lockstep.conformance.device;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Set;

import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceStatistics;
import org.lockstep.spi.device.ExternalMemory;

/** An {@link ExternalMemory} that forwards every call to another; subclasses observe or change some. */
public abstract class ForwardingMemory implements ExternalMemory {
    protected final ExternalMemory device;

    protected ForwardingMemory(ExternalMemory device) {
        this.device = Objects.requireNonNull(device, "device");
    }

    /** The device this one forwards to. */
    public ExternalMemory delegate() {
        return device;
    }

    @Override
    public String name() {
        return device.name();
    }

    @Override
    public long capacity() {
        return device.capacity();
    }

    @Override
    public int blockSize() {
        return device.blockSize();
    }

    @Override
    public Set<DeviceCapability> capabilities() {
        return device.capabilities();
    }

    @Override
    public MemorySegment asSegment() {
        return device.asSegment();
    }

    @Override
    public void read(long offset, MemorySegment target, long targetOffset, long length) {
        device.read(offset, target, targetOffset, length);
    }

    @Override
    public void write(long offset, MemorySegment source, long sourceOffset, long length) {
        device.write(offset, source, sourceOffset, length);
    }

    @Override
    public void fill(long offset, long length, byte value) {
        device.fill(offset, length, value);
    }

    @Override
    public long getLong(long offset) {
        return device.getLong(offset);
    }

    @Override
    public void putLong(long offset, long value) {
        device.putLong(offset, value);
    }

    @Override
    public int getInt(long offset) {
        return device.getInt(offset);
    }

    @Override
    public void putInt(long offset, int value) {
        device.putInt(offset, value);
    }

    @Override
    public long getLongAcquire(long offset) {
        return device.getLongAcquire(offset);
    }

    @Override
    public void putLongRelease(long offset, long value) {
        device.putLongRelease(offset, value);
    }

    @Override
    public long getLongVolatile(long offset) {
        return device.getLongVolatile(offset);
    }

    @Override
    public void putLongVolatile(long offset, long value) {
        device.putLongVolatile(offset, value);
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long value) {
        return device.compareAndSetLong(offset, expected, value);
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        return device.getAndAddLong(offset, delta);
    }

    @Override
    public void persist(long offset, long length) {
        device.persist(offset, length);
    }

    @Override
    public DeviceStatistics statistics() {
        return device.statistics();
    }

    @Override
    public void close() {
        device.close();
    }
}
