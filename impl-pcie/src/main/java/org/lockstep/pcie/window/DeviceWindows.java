package org.lockstep.pcie.window;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Info;
import org.lockstep.api.Window;
import org.lockstep.pcie.layout.DeviceWindowDescriptor;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.window.WindowFactory;

/**
 * The mailbox transport's windows: allocated ones (shared or not) are {@link DeviceWindow}s in the
 * ranks' device buffers; a window over the caller's memory, or on a device without atomics (whose
 * lock words could not be taken), is the point-to-point default. Every rank of a communicator sees
 * the same device, so they all choose alike.
 */
public final class DeviceWindows implements WindowFactory {
    private final ExternalMemory device;
    private final Supplier<IdleStrategy> backOff;
    /** Windows over the caller's memory, their waits backing off as the transport's. */
    private final WindowFactory pointToPoint;

    /** Windows on {@code device}, whose polling waits back off as {@code backOff}'s strategies (the transport's policy). */
    public DeviceWindows(ExternalMemory device, Supplier<IdleStrategy> backOff) {
        this.device = device;
        this.backOff = backOff;
        this.pointToPoint = WindowFactory.pointToPoint(backOff);
    }

    @Override
    public Window allocate(Communicator comm, long byteSize, int dispUnit, Info hints) {
        return onDevice(comm, byteSize, dispUnit, hints, false);
    }

    @Override
    public Window allocateShared(Communicator comm, long byteSize, int dispUnit, Info hints) {
        return onDevice(comm, byteSize, dispUnit, hints, true);
    }

    @Override
    public Window create(Communicator comm, MemorySegment base, int dispUnit, Info hints) {
        return pointToPoint.create(comm, base, dispUnit, hints);
    }

    private Window onDevice(Communicator comm, long byteSize, int dispUnit, Info hints, boolean shared) {
        if (!device.has(DeviceCapability.ATOMIC_CAS)) {
            return shared ? pointToPoint.allocateShared(comm, byteSize, dispUnit, hints) : pointToPoint.allocate(comm, byteSize, dispUnit, hints);
        }
        // a device buffer of this rank, zeroed (lock words free) before the collective creation lets any rank see it
        MemorySegment buffer = comm.allocate(DeviceWindowDescriptor.dataOffset(comm.size()) + byteSize);
        buffer.fill((byte) 0);
        return new DeviceWindow(comm, device, buffer, byteSize, dispUnit, shared, backOff);
    }
}
