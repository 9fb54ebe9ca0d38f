package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.RankProgram;
import org.lockstep.pcie.collective.DeviceCollectives;

/**
 * The direct device collectives, which read the members' own device buffers: bcast from a root
 * whose buffer is a device buffer, allreduce above the contribution algorithm's limit, alltoall
 * above the data area's. Each case checks the bytes, that nothing outside the result was
 * written, and that no message was sent — the point-to-point algorithms, which would also give
 * the right bytes, send messages; the direct ones only read and write the device.
 */
class DirectCollectivesTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    /** Bytes past every result buffer that must stay as they were. */
    private static final int GUARD = 64;
    private static final byte GUARD_BYTE = (byte) 0x5A;

    private static JobOptions options(int ranks) {
        return TestWorlds.options(ranks).with(MailboxOptions.HEAP_PER_RANK, "16m");
    }

    private static void run(JobOptions options, RankProgram program) {
        assertTimeoutPreemptively(BOUND, () -> TestWorlds.run(options, program));
    }

    private static long messagesSent(Communicator world) {
        return ((MailboxCommunicator) world).endpoint().statistics().messagesSent;
    }

    /** A result buffer of {@code bytes} bytes and a guard, in device memory or in process memory. */
    private static MemorySegment buffer(Communicator world, long bytes, boolean device) {
        MemorySegment s = device ? world.allocate(bytes + GUARD) : MemorySegment.ofArray(new long[(int) (bytes + GUARD) / Long.BYTES]);
        s.fill(GUARD_BYTE);
        return s;
    }

    private static void assertGuard(MemorySegment s, long bytes, String what) {
        for (long i = bytes; i < s.byteSize(); i++) {
            assertEquals(GUARD_BYTE, s.get(ValueLayout.JAVA_BYTE, i), what + ": byte " + i + " past the result was written");
        }
    }

    private static void release(Communicator world, MemorySegment s) {
        if (s.isNative()) {
            world.free(s);
        }
    }

    /**
     * A broadcast of 64 KiB or 1 MiB (above the chunked broadcast's limit) from a device buffer
     * reaches every rank, from every root, into device and process memory, with no message; 1 MiB
     * from a root's process memory takes the point-to-point algorithm (and does send).
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void bcastFromARootsDeviceBufferIsReadStraightFromIt(int ranks) {
        // shared when the ranks have a core each, else pulled; shared; sizes that split into uneven pieces
        for (int n : new int[] {(64 << 10) + 13, (1 << 20) + 13}) {
            bcast(ranks, n);
        }
    }

    private static void bcast(int ranks, int n) {
        assertTrue(n >= DeviceCollectives.BCAST_SHARED_MIN_BYTES);
        run(options(ranks), world -> {
            for (int root = 0; root < ranks; root++) {
                for (boolean receiverDevice : new boolean[] {true, false}) {
                    MemorySegment buffer = buffer(world, n, world.rank() == root || receiverDevice);
                    if (world.rank() == root) {
                        MemorySegment.copy(TestWorlds.pattern(root, 0, receiverDevice ? 1 : 2, n), 0, buffer, 0, n);
                    }
                    long before = messagesSent(world);
                    world.bcast(buffer, n, Datatype.BYTE, root);
                    assertEquals(before, messagesSent(world), "a direct bcast sends nothing (root " + root + ")");
                    assertEquals(-1, TestWorlds.firstMismatch(buffer, root, 0, receiverDevice ? 1 : 2, n), "root " + root);
                    assertGuard(buffer, n, "bcast from " + root);
                    // the root may change its buffer once bcast returns: nobody still reads it
                    buffer.fill((byte) 0);
                    world.barrier();
                    release(world, buffer);
                }
            }
            if (n > DeviceCollectives.BCAST_NATIVE_MAX_BYTES) {
                MemorySegment process = buffer(world, n, false);
                long before = messagesSent(world);
                world.bcast(process, n, Datatype.BYTE, 0);
                assertTrue(messagesSent(world) > before || world.rank() != 0, "from process memory: point to point");
            }
        });
    }

    /**
     * Blocks of 4 KiB (process buffers staged in the data area) and 40 KiB (staged in the heap
     * partition), twice each: device and process buffers, in place and not.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void alltoallReadsEveryMembersBlockFromItsBuffer(int ranks) {
        for (int block : new int[] {4 << 10, 40 << 10}) {
            alltoall(ranks, block);
        }
    }

    private static void alltoall(int ranks, int block) {
        int n = block * ranks;
        assertTrue((long) block * ranks > DeviceCollectives.ALLTOALL_NATIVE_MAX_BYTES, "above the data area's alltoall");
        run(options(ranks), world -> {
            for (int round = 0; round < 2; round++) {
                for (boolean device : new boolean[] {true, false}) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        long index = round * 4 + (device ? 2 : 0) + (inPlace ? 1 : 0);
                        MemorySegment send = buffer(world, n, device);
                        for (int to = 0; to < ranks; to++) {
                            MemorySegment.copy(TestWorlds.pattern(world.rank(), to, index, block), 0, send, (long) to * block, block);
                        }
                        MemorySegment recv = inPlace ? send : buffer(world, n, device);
                        long before = messagesSent(world);
                        world.alltoall(inPlace ? Communicator.IN_PLACE : send, block, Datatype.BYTE, recv);
                        assertEquals(before, messagesSent(world), "a direct alltoall sends nothing");
                        for (int from = 0; from < ranks; from++) {
                            assertEquals(-1, TestWorlds.firstMismatch(recv.asSlice((long) from * block, block), from, world.rank(), index, block),
                                    "block from " + from + (device ? " (device" : " (process") + (inPlace ? ", in place)" : ")"));
                        }
                        assertGuard(recv, n, "alltoall");
                        world.barrier();
                        release(world, send);
                        if (!inPlace) {
                            release(world, recv);
                        }
                    }
                }
            }
        });
    }

    /**
     * Sums whose bits depend on the order of the additions, over segments of unequal length
     * (count not a multiple of the ranks): every rank gets the bits of c0 + (c1 + (… + c(p−1))),
     * in device and process memory, in place and not, with no message.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 7})
    void allreduceFoldsEverySegmentOnceInRankOrder(int ranks) {
        // staged in the data area, and in the heap partition (more than a chunk)
        for (int count : new int[] {(int) (DeviceCollectives.ALLREDUCE_NATIVE_MAX_BYTES / Double.BYTES) * 2 + 3, 100_003}) {
            allreduce(ranks, count);
        }
    }

    private static void allreduce(int ranks, int count) {
        long n = (long) count * Double.BYTES;
        double[] expected = new double[count];
        for (int i = 0; i < count; i++) {
            double acc = contribution(ranks - 1, i);
            for (int r = ranks - 2; r >= 0; r--) {
                acc = contribution(r, i) + acc;
            }
            expected[i] = acc;
        }
        run(options(ranks), world -> {
            for (boolean device : new boolean[] {true, false}) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    MemorySegment send = buffer(world, n, device);
                    for (int i = 0; i < count; i++) {
                        send.setAtIndex(ValueLayout.JAVA_DOUBLE, i, contribution(world.rank(), i));
                    }
                    MemorySegment recv = inPlace ? send : buffer(world, n, device);
                    long before = messagesSent(world);
                    world.allreduce(inPlace ? Communicator.IN_PLACE : send, recv, count, Datatype.DOUBLE, Op.SUM);
                    assertEquals(before, messagesSent(world), "a direct allreduce sends nothing");
                    double[] got = recv.asSlice(0, n).toArray(ValueLayout.JAVA_DOUBLE);
                    assertArrayEquals(expected, got, (device ? "device" : "process") + (inPlace ? ", in place" : ""));
                    assertGuard(recv, n, "allreduce");
                    world.barrier();
                    release(world, send);
                    if (!inPlace) {
                        release(world, recv);
                    }
                }
            }
        });
    }

    /** 2×2 matrix products (mod 2^64) do not commute: the direct allreduce gives M0·M1·…·M(p−1). */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void nonCommutativeAllreduceCombinesInRankOrder(int ranks) {
        Op product = Op.create((in, inout, count, type) -> {
            for (long m = 0; m < count / 4; m++) {
                long[] a = in.asSlice(m * 32, 32).toArray(ValueLayout.JAVA_LONG);
                long[] b = inout.asSlice(m * 32, 32).toArray(ValueLayout.JAVA_LONG);
                long[] c = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
                MemorySegment.copy(MemorySegment.ofArray(c), 0, inout, m * 32, 32);
            }
        }, false);
        int matrices = (int) (DeviceCollectives.ALLREDUCE_NATIVE_MAX_BYTES / 32) + 5 * 4; // segments of whole matrices need 4·p | count
        int count = matrices * 4 - (matrices * 4) % (4 * ranks);
        ConcurrentHashMap<Integer, long[]> results = new ConcurrentHashMap<>();
        run(options(ranks), world -> {
            MemorySegment send = world.allocate((long) count * Long.BYTES);
            for (int i = 0; i < count; i++) {
                send.setAtIndex(ValueLayout.JAVA_LONG, i, matrixEntry(world.rank(), i));
            }
            MemorySegment recv = world.allocate((long) count * Long.BYTES);
            long before = messagesSent(world);
            world.allreduce(send, recv, count, Datatype.LONG, product);
            assertEquals(before, messagesSent(world), "a direct allreduce sends nothing");
            results.put(world.rank(), recv.toArray(ValueLayout.JAVA_LONG));
        });
        for (int m = 0; m < count / 4; m++) {
            long[] acc = {1, 0, 0, 1};
            for (int r = 0; r < ranks; r++) {
                long[] b = new long[4];
                for (int e = 0; e < 4; e++) {
                    b[e] = matrixEntry(r, m * 4 + e);
                }
                acc = new long[] {acc[0] * b[0] + acc[1] * b[2], acc[0] * b[1] + acc[1] * b[3], acc[2] * b[0] + acc[3] * b[2],
                    acc[2] * b[1] + acc[3] * b[3]};
            }
            for (int r = 0; r < ranks; r++) {
                long[] got = java.util.Arrays.copyOfRange(results.get(r), m * 4, m * 4 + 4);
                assertArrayEquals(acc, got, "matrix " + m + " on rank " + r);
            }
        }
    }

    /**
     * One member without room to stage (its partition taken by a buffer it holds): every member
     * sees that it could not expose its buffers, and all take the point-to-point algorithm, which
     * gives the same sums.
     */
    @Test
    void withoutRoomToStageOnOneMemberEveryMemberFallsBackToPointToPoint() {
        int ranks = 3;
        int count = 150_000; // two staged copies of 1.2 MB fit a 4 MiB partition, but not beside a 2 MiB buffer
        run(options(ranks).with(MailboxOptions.HEAP_PER_RANK, "4m"), world -> {
            MemorySegment hog = world.rank() == 1 ? world.allocate(2 << 20) : null;
            long[] mine = new long[count];
            java.util.Arrays.fill(mine, world.rank() + 1L);
            long[] sum = new long[count];
            long before = messagesSent(world);
            world.allreduce(MemorySegment.ofArray(mine), MemorySegment.ofArray(sum), count, Datatype.LONG, Op.SUM);
            assertTrue(messagesSent(world) > before, "the point-to-point algorithm ran");
            for (int i = 0; i < count; i += 997) {
                assertEquals(6, sum[i], "element " + i);
            }
            if (hog != null) {
                world.free(hog);
            }
        });
    }

    /**
     * A receiver whose size differs from the root's fails with TRUNCATE; the root and the others
     * finish (sizes of the direct broadcast, below the shared one's on any host).
     */
    @Test
    void aSizeThatDiffersFromTheRootsFailsThatRankAndHangsNobody() {
        int ranks = 3;
        int n = 32 << 10;
        assertTrue(n / 2 >= DeviceCollectives.BCAST_DIRECT_MIN_BYTES && n < DeviceCollectives.BCAST_SHARED_MIN_BYTES);
        ConcurrentHashMap<Integer, ErrorClass> outcome = new ConcurrentHashMap<>();
        run(options(ranks), world -> {
            MemorySegment buffer = world.allocate(n);
            long mine = world.rank() == 2 ? n / 2 : n;
            LockstepException e = null;
            try {
                world.bcast(buffer, mine, Datatype.BYTE, 0);
            } catch (LockstepException thrown) {
                e = thrown;
            }
            outcome.put(world.rank(), e == null ? ErrorClass.OTHER : e.errorClass());
            world.barrier();
        });
        assertEquals(ErrorClass.OTHER, outcome.get(0), "the root finished");
        assertEquals(ErrorClass.OTHER, outcome.get(1), "a rank of the root's size finished");
        assertEquals(ErrorClass.TRUNCATE, outcome.get(2), "the rank of another size");
    }

    private static double contribution(int rank, int i) {
        long h = (rank * 7919L + i) * 0x9E3779B97F4A7C15L;
        return ((h >>> 40) % 1000) * Math.pow(10, (rank * 5 + i) % 17 - 8);
    }

    private static long matrixEntry(int rank, int i) {
        return (rank * 31L + i) * 0x9E3779B97F4A7C15L >>> 3;
    }
}
