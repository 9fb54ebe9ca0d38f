package org.lockstep.spi.device;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.ErrorClass;

/**
 * The checks every {@link ExternalMemory} makes before it touches memory, with the same errors
 * for every device: {@code device} names it in messages, e.g. {@code "emulated device 'x'"}.
 */
public final class DeviceAccessChecks {
    private static final long WORD_ALIGNMENT_MASK = Long.BYTES - 1;

    private DeviceAccessChecks() {
    }

    /** {@code [offset, offset + length)} lies in {@code [0, capacity)}; written so that no sum can overflow. */
    public static void requireInBounds(String device, String operation, long offset, long length, long capacity) {
        if (offset < 0 || length < 0 || offset > capacity - length) {
            throw new DeviceException(device + ": " + operation + " of " + length
                    + " bytes at offset " + offset + " is outside the device [0, " + capacity + ")");
        }
    }

    /** An atomic or ordered word is 8-byte aligned. */
    public static void requireAligned(String device, String operation, long offset) {
        if ((offset & WORD_ALIGNMENT_MASK) != 0) {
            throw new DeviceException(ErrorClass.ARG, device + ": " + operation + " at offset "
                    + offset + " is not 8-byte aligned (atomic and ordered words must be)");
        }
    }

    /** The caller's buffer exists, holds {@code length} bytes from {@code bufferOffset}, and is writable if {@code written}. */
    public static void requireBuffer(String device, String operation, MemorySegment buffer, long bufferOffset, long length,
                                     boolean written) {
        if (buffer == null) {
            throw new DeviceException(ErrorClass.BUFFER, device + ": " + operation + " with a null buffer");
        }
        if (bufferOffset < 0 || length < 0 || bufferOffset > buffer.byteSize() - length) {
            throw new DeviceException(ErrorClass.BUFFER, device + ": " + operation + " of " + length
                    + " bytes at buffer offset " + bufferOffset + " does not fit a buffer of " + buffer.byteSize() + " bytes");
        }
        if (written && buffer.isReadOnly()) {
            throw new DeviceException(ErrorClass.BUFFER, device + ": " + operation + " into a read-only buffer");
        }
    }

    /** The message of an access to a closed device. */
    public static String closedMessage(String device, String operation, long offset) {
        return device + " is closed: " + operation + " at offset " + offset;
    }
}
