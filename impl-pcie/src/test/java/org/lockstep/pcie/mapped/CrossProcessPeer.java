package org.lockstep.pcie.mapped;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The second process of {@link CrossProcessTest}: attaches to the device the test created (found
 * through the service loader, as an application would), checks what the test published, races
 * it on a shared counter, and publishes its own payload. Exit status 0 means every check held.
 */
public final class CrossProcessPeer {
    static final long FLAG = 0;
    static final long COUNTER = 64;
    static final long READY = 128;
    static final long PAYLOAD = 4096;
    static final int PAYLOAD_BYTES = 64 * 1024;
    static final long REPLY = PAYLOAD + PAYLOAD_BYTES;
    static final long PUBLISHED = 1;
    static final long REPLIED = 2;
    static final int EXIT_TIMEOUT = 3;
    static final int EXIT_WRONG_PAYLOAD = 4;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);

    private CrossProcessPeer() {
    }

    /** Arguments: device path, capacity, number of counter increments. */
    public static void main(String[] args) {
        Path path = Path.of(args[0]);
        long capacity = Long.parseLong(args[1]);
        int increments = Integer.parseInt(args[2]);
        DeviceSpec spec = DeviceSpec.of(MappedDeviceProvider.NAME, capacity).withPath(path.toString())
                .withOption(MappedDeviceOptions.CREATE, "false");
        try (ExternalMemory device = DeviceProviders.open(spec); Arena arena = Arena.ofConfined()) {
            awaitValue(device, FLAG, PUBLISHED);
            MemorySegment payload = arena.allocate(PAYLOAD_BYTES);
            device.read(PAYLOAD, payload, 0, PAYLOAD_BYTES);
            for (int i = 0; i < PAYLOAD_BYTES; i++) {
                if (payload.get(ValueLayout.JAVA_BYTE, i) != pattern(i, 1)) {
                    System.err.println("payload byte " + i + " is " + payload.get(ValueLayout.JAVA_BYTE, i));
                    System.exit(EXIT_WRONG_PAYLOAD);
                }
            }
            device.putLongRelease(READY, 1);
            for (int i = 0; i < increments; i++) {
                long seen;
                do {
                    seen = device.getLongVolatile(COUNTER);
                } while (!device.compareAndSetLong(COUNTER, seen, seen + 1));
            }
            for (int i = 0; i < PAYLOAD_BYTES; i++) {
                payload.set(ValueLayout.JAVA_BYTE, i, pattern(i, 2));
            }
            device.write(REPLY, payload, 0, PAYLOAD_BYTES);
            device.putLongRelease(FLAG, REPLIED);
        }
    }

    static byte pattern(int index, int round) {
        return (byte) (index * 31 + round * 7);
    }

    private static void awaitValue(ExternalMemory device, long offset, long value) {
        long start = System.nanoTime();
        while (device.getLongAcquire(offset) != value) {
            if (System.nanoTime() - start > DEADLINE_NANOS) {
                System.err.println("timed out waiting for word " + offset + " to become " + value);
                System.exit(EXIT_TIMEOUT);
            }
            Thread.onSpinWait();
        }
    }
}
