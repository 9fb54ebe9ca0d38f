package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Level.OPTIONAL;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.seed;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.device;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.conformance.DeviceRuleContext;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleSkipped;
import org.lockstep.conformance.RuleViolation;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;

/** The device contract ({@link ExternalMemory}): bounds, alignment, atomics, ordering, persistence, truthful capabilities. */
final class DeviceRules {
    private static final long CAPACITY = 1 << 20;
    private static final int THREADS = 4;
    private static final int ADDS_PER_THREAD = 20_000;
    private static final int PUBLICATIONS = 2_000;
    private static final int PUBLISHED_BYTES = 256;

    private DeviceRules() {
    }

    static List<Rule> rules() {
        return List.of(
                device(1, REQUIRED, "boundsEnforced",
                        "Every access that reaches outside [0, capacity) fails with a DeviceException and changes nothing.",
                        List.of(seed("every offset is checked against the layout"), standard("§2 (erroneous arguments)")),
                        DeviceRules::boundsEnforced),
                device(2, REQUIRED, "alignmentEnforced",
                        "Ordered and atomic word accesses at offsets that are not multiples of 8 fail with a DeviceException.",
                        List.of(seed("8-byte aligned atomic operations")), DeviceRules::alignmentEnforced),
                device(3, REQUIRED, "atomicsAtomic",
                        "On a device declaring ATOMIC_CAS, concurrent getAndAdd and compare-and-set loops lose no update and hand out every value once.",
                        List.of(seed("compare-and-swap where the device has it")), DeviceRules::atomicsAtomic),
                device(4, REQUIRED, "atomicsCapabilityTruthful",
                        "Atomic operations work exactly when ATOMIC_CAS is declared; without it they fail with UNSUPPORTED_OPERATION.",
                        List.of(seed("CPU compare-and-swap is not guaranteed on PCIe device memory")), DeviceRules::atomicsCapabilityTruthful),
                device(5, REQUIRED, "releaseAcquirePublication",
                        "Bytes written before a release store are seen by a thread whose acquire load sees that store.",
                        List.of(seed("ownership hand-off with a release store")), DeviceRules::releaseAcquirePublication),
                device(6, REQUIRED, "readWriteRoundTrip",
                        "Bytes written at any offset and length, and filled ranges, read back exactly, and their neighbours are untouched.",
                        List.of(seed("byte-addressable region")), DeviceRules::readWriteRoundTrip),
                device(7, REQUIRED, "persistedBytesReadBack",
                        "Bytes written and persisted read back unchanged, and a persist outside the device fails.",
                        List.of(seed("persist barrier")), DeviceRules::persistedBytesReadBack),
                device(8, OPTIONAL, "powerLossKeepsPersisted",
                        "On a device declaring CRASH_INJECTION, persisted bytes survive an emulated power loss and the device stays usable.",
                        List.of(seed("written bytes survive power loss")), DeviceRules::powerLossKeepsPersisted),
                device(9, REQUIRED, "closedDeviceRejects",
                        "After close every access fails with a DeviceException, and closing again does nothing.",
                        List.of(seed("unmaps or releases the device")), DeviceRules::closedDeviceRejects),
                device(10, REQUIRED, "geometryTruthful",
                        "The device has at least the capacity asked for, a power-of-two block size, and a segment view of exactly its capacity that shows its bytes.",
                        List.of(seed("capacity, block size, a memory segment view")), DeviceRules::geometryTruthful));
    }

    private static void expectDeviceError(String what, Runnable access) {
        try {
            access.run();
        } catch (DeviceException e) {
            return;
        } catch (RuntimeException e) {
            throw new RuleViolation(what + " failed with " + e + " instead of a DeviceException");
        }
        throw new RuleViolation(what + " was allowed");
    }

    private static void boundsEnforced(DeviceRuleContext c) {
        ExternalMemory d = c.open(CAPACITY);
        long cap = d.capacity();
        MemorySegment eight = MemorySegment.ofArray(new byte[8]);
        d.fill(cap - 64, 64, (byte) 0x11);
        expectDeviceError("read of 8 bytes at capacity - 4", () -> d.read(cap - 4, eight, 0, 8));
        expectDeviceError("write of 8 bytes at capacity - 4", () -> d.write(cap - 4, PayloadPattern.of(1, 8), 0, 8));
        expectDeviceError("write at -1", () -> d.write(-1, eight, 0, 1));
        expectDeviceError("fill of 2 bytes at capacity - 1", () -> d.fill(cap - 1, 2, (byte) 0));
        expectDeviceError("read of a negative length", () -> d.read(0, eight, 0, -1));
        expectDeviceError("getLong at capacity - 4", () -> d.getLong(cap - 4));
        expectDeviceError("putLong at capacity", () -> d.putLong(cap, 1));
        expectDeviceError("getInt at capacity - 2", () -> d.getInt(cap - 2));
        expectDeviceError("putInt at -4", () -> d.putInt(-4, 1));
        expectDeviceError("getLongAcquire at capacity", () -> d.getLongAcquire(cap));
        expectDeviceError("putLongRelease at capacity", () -> d.putLongRelease(cap, 1));
        expectDeviceError("putLongVolatile at -8", () -> d.putLongVolatile(-8, 1));
        expectDeviceError("persist past the end", () -> d.persist(cap - 8, 16));
        expectDeviceError("read at Long.MAX_VALUE", () -> d.read(Long.MAX_VALUE, eight, 0, 1));
        MemorySegment tail = MemorySegment.ofArray(new byte[64]);
        d.read(cap - 64, tail, 0, 64);
        for (int i = 0; i < 64; i++) {
            check(tail.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) == 0x11,
                    "a rejected access changed byte " + (cap - 64 + i) + " at the end of the device");
        }
    }

    private static void alignmentEnforced(DeviceRuleContext c) {
        ExternalMemory d = c.open(CAPACITY);
        expectDeviceError("getLongAcquire at 4", () -> d.getLongAcquire(4));
        expectDeviceError("putLongRelease at 12", () -> d.putLongRelease(12, 1));
        expectDeviceError("getLongVolatile at 1", () -> d.getLongVolatile(1));
        expectDeviceError("putLongVolatile at 7", () -> d.putLongVolatile(7, 1));
        if (d.has(DeviceCapability.ATOMIC_CAS)) {
            expectDeviceError("compareAndSetLong at 3", () -> d.compareAndSetLong(3, 0, 1));
            expectDeviceError("getAndAddLong at 20", () -> d.getAndAddLong(20, 1));
        }
    }

    private static void atomicsAtomic(DeviceRuleContext c) throws InterruptedException {
        ExternalMemory d = c.open(CAPACITY);
        if (!d.has(DeviceCapability.ATOMIC_CAS)) {
            throw new RuleSkipped("the device does not declare ATOMIC_CAS");
        }
        long addWord = 0;
        long casWord = 64;
        d.putLongVolatile(addWord, 0);
        d.putLongVolatile(casWord, 0);
        int total = THREADS * ADDS_PER_THREAD;
        BitSet handedOut = new BitSet(total);
        AtomicReference<String> problem = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            threads.add(Thread.ofPlatform().name("device-atomics-" + t).start(() -> {
                long[] mine = new long[ADDS_PER_THREAD];
                for (int i = 0; i < ADDS_PER_THREAD; i++) {
                    mine[i] = d.getAndAddLong(addWord, 1);
                    long seen;
                    do {
                        seen = d.getLongVolatile(casWord);
                    } while (!d.compareAndSetLong(casWord, seen, seen + 1));
                }
                synchronized (handedOut) {
                    for (long v : mine) {
                        if (v < 0 || v >= total || handedOut.get((int) v)) {
                            problem.compareAndSet(null, "getAndAddLong handed out " + v + " twice or out of range");
                        } else {
                            handedOut.set((int) v);
                        }
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        check(problem.get() == null, problem.get());
        checkEquals((long) total, d.getLongVolatile(addWord), "word after " + total + " concurrent getAndAddLong(1)");
        checkEquals((long) total, d.getLongVolatile(casWord), "word after " + total + " concurrent compare-and-set increments");
    }

    private static void atomicsCapabilityTruthful(DeviceRuleContext c) {
        ExternalMemory d = c.open(CAPACITY);
        if (d.has(DeviceCapability.ATOMIC_CAS)) {
            d.putLongVolatile(128, 5);
            check(!d.compareAndSetLong(128, 4, 9), "compareAndSetLong succeeded with a wrong expected value");
            checkEquals(5L, d.getLongVolatile(128), "word after a failed compare-and-set");
            check(d.compareAndSetLong(128, 5, 9), "compareAndSetLong failed with the right expected value");
            checkEquals(9L, d.getAndAddLong(128, 3), "getAndAddLong's previous value");
            checkEquals(12L, d.getLongVolatile(128), "word after getAndAddLong(3)");
            return;
        }
        for (Runnable op : List.<Runnable>of(() -> d.compareAndSetLong(128, 0, 1), () -> d.getAndAddLong(128, 1))) {
            try {
                op.run();
                throw new RuleViolation("an atomic operation worked on a device that does not declare ATOMIC_CAS");
            } catch (LockstepException e) {
                checkEquals(ErrorClass.UNSUPPORTED_OPERATION, e.errorClass(), "error class of an atomic operation without ATOMIC_CAS");
            }
        }
    }

    private static void releaseAcquirePublication(DeviceRuleContext c) throws InterruptedException {
        ExternalMemory d = c.open(CAPACITY);
        long request = 0;
        long reply = 64;
        long data = 4096;
        d.putLongVolatile(request, 0);
        d.putLongVolatile(reply, 0);
        AtomicReference<String> problem = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().name("device-reader").start(() -> {
            MemorySegment in = MemorySegment.ofArray(new byte[PUBLISHED_BYTES]);
            for (long round = 1; round <= PUBLICATIONS && problem.get() == null; round++) {
                while (d.getLongAcquire(request) != round) {
                    Thread.onSpinWait();
                }
                d.read(data, in, 0, PUBLISHED_BYTES);
                if (!PayloadPattern.matches(in, round, PUBLISHED_BYTES) || d.getLong(data + PUBLISHED_BYTES) != round) {
                    problem.set("round " + round + ": the reader saw the release store but not all bytes written before it");
                }
                d.putLongRelease(reply, round);
            }
        });
        MemorySegment out = MemorySegment.ofArray(new byte[PUBLISHED_BYTES]);
        for (long round = 1; round <= PUBLICATIONS && problem.get() == null; round++) {
            PayloadPattern.fill(out, round, PUBLISHED_BYTES);
            d.write(data, out, 0, PUBLISHED_BYTES);
            d.putLong(data + PUBLISHED_BYTES, round);
            d.putLongRelease(request, round);
            while (d.getLongAcquire(reply) != round && problem.get() == null && reader.isAlive()) {
                Thread.onSpinWait();
            }
        }
        reader.join();
        check(problem.get() == null, problem.get());
    }

    private static void readWriteRoundTrip(DeviceRuleContext c) {
        ExternalMemory d = c.open(CAPACITY);
        int block = d.blockSize();
        long[] offsets = {0, 1, 3, block - 1, block, 3L * block + 5};
        int[] lengths = {0, 1, 7, 64, 4097};
        for (long offset : offsets) {
            for (int length : lengths) {
                if (offset + length + 2 > d.capacity()) {
                    continue;
                }
                d.fill(offset, length + 2, (byte) 0x33);
                long key = offset * 10_000 + length;
                d.write(offset + 1, PayloadPattern.of(key, length), 0, length);
                MemorySegment back = MemorySegment.ofArray(new byte[length + 2]);
                d.read(offset, back, 0, length + 2);
                check(back.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) == 0x33
                        && back.get(java.lang.foreign.ValueLayout.JAVA_BYTE, length + 1) == 0x33,
                        "writing " + length + " bytes at " + (offset + 1) + " changed a neighbouring byte");
                check(PayloadPattern.matches(back.asSlice(1, length), key, length), length + " bytes written at " + (offset + 1)
                        + " read back differently");
            }
        }
        d.putLong(8192, 0x0102_0304_0506_0708L);
        checkEquals(0x0102_0304_0506_0708L, d.getLong(8192), "putLong/getLong");
        d.putInt(8200, 0xCAFE_BABE);
        checkEquals(0xCAFE_BABE, d.getInt(8200), "putInt/getInt");
        checkEquals(0x0102_0304_0506_0708L, d.getLong(8192), "the long next to an int written after it");
    }

    private static void persistedBytesReadBack(DeviceRuleContext c) {
        ExternalMemory d = c.open(CAPACITY);
        int length = 3 * 4096 + 17;
        d.write(100, PayloadPattern.of(7, length), 0, length);
        d.persist(100, length);
        MemorySegment back = MemorySegment.ofArray(new byte[length]);
        d.read(100, back, 0, length);
        check(PayloadPattern.matches(back, 7, length), "persisted bytes read back differently");
        expectDeviceError("persist of a range past the end", () -> d.persist(d.capacity() - 1, 2));
    }

    private static void powerLossKeepsPersisted(DeviceRuleContext c) {
        ExternalMemory d = c.open(CAPACITY);
        if (!d.has(DeviceCapability.CRASH_INJECTION)) {
            throw new RuleSkipped("the device does not declare CRASH_INJECTION");
        }
        if (c.powerLoss().isEmpty()) {
            throw new RuleSkipped("the device declares CRASH_INJECTION but the kit was given no way to cut its power "
                    + "(the device SPI has no crash operation)");
        }
        int length = 2 * 4096;
        d.write(0, PayloadPattern.of(1, length), 0, length);
        d.persist(0, length);
        d.write(65_536, PayloadPattern.of(2, length), 0, length);
        c.powerLoss().get().crash(d);
        MemorySegment back = MemorySegment.ofArray(new byte[length]);
        d.read(0, back, 0, length);
        check(PayloadPattern.matches(back, 1, length), "persisted bytes changed across an emulated power loss");
        d.write(0, PayloadPattern.of(3, 64), 0, 64);
        d.read(0, back, 0, 64);
        check(PayloadPattern.matches(back, 3, 64), "the device is not usable after an emulated power loss");
    }

    private static void closedDeviceRejects(DeviceRuleContext c) {
        ExternalMemory d = c.target().open(CAPACITY);
        d.close();
        expectDeviceError("read after close", () -> d.read(0, MemorySegment.ofArray(new byte[8]), 0, 8));
        expectDeviceError("write after close", () -> d.write(0, MemorySegment.ofArray(new byte[8]), 0, 8));
        expectDeviceError("getLong after close", () -> d.getLong(0));
        expectDeviceError("putLongRelease after close", () -> d.putLongRelease(0, 1));
        d.close();
    }

    private static void geometryTruthful(DeviceRuleContext c) {
        ExternalMemory d = c.open(CAPACITY);
        check(d.capacity() >= CAPACITY, "asked for " + CAPACITY + " bytes, the device has " + d.capacity());
        check(d.blockSize() > 0 && Integer.bitCount(d.blockSize()) == 1, "block size " + d.blockSize() + " is not a power of two");
        MemorySegment view = d.asSegment();
        checkEquals(d.capacity(), view.byteSize(), "size of the device's segment view");
        d.write(d.capacity() - 8, PayloadPattern.of(9, 8), 0, 8);
        check(PayloadPattern.matches(view.asSlice(d.capacity() - 8, 8), 9, 8), "the segment view does not show bytes written at the end");
    }
}
