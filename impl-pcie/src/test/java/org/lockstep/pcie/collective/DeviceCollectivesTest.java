package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.pcie.MailboxProvider;
import org.lockstep.spi.collective.PointToPointCollectives;

/**
 * The device-native collectives of the mailbox transport ({@link DeviceCollectives}) on the
 * world communicator and on communicators derived from it: barrier on flags (no device CAS) and
 * on a counter (CAS, nine ranks and more), broadcast through the root's data area, allreduce by
 * contributions — bit-identical on every rank and in rank order for non-commutative operations —
 * with communicators kept apart by their slots, and a failed member failing the collective.
 */
class DeviceCollectivesTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    private static JobOptions options(int ranks, boolean atomics) {
        return CollectiveTesting.options(ranks).with("lockstep.device.option.atomics", Boolean.toString(atomics));
    }

    private static void run(JobOptions options, CollectiveTesting.CommProgram program) {
        assertTimeoutPreemptively(BOUND, () -> CollectiveTesting.run(options, PointToPointCollectives.INSTANCE, program));
    }

    /**
     * No rank leaves barrier k before every rank has entered it, whichever barrier runs: chosen by
     * the transport (with and without device CAS), or asked for by name.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 8, 9, 12})
    void noRankLeavesABarrierBeforeAllHaveEntered(int ranks) {
        for (String barrier : new String[] {"", "flags", "leader", "counter", "dissemination"}) {
            for (boolean atomics : new boolean[] {true, false}) {
                if (!barrier.equals("counter") || atomics) {
                    JobOptions options = options(ranks, atomics);
                    noRankLeavesEarly(ranks, barrier.isEmpty() ? options : options.with("lockstep.collectives.barrier", barrier),
                            barrier + ", atomics " + atomics);
                }
            }
        }
    }

    @Test
    void theCounterBarrierOnADeviceWithoutCasIsABadArgument() {
        LockstepException e = assertThrows(LockstepException.class, () -> run(
                options(3, false).with("lockstep.collectives.barrier", "counter"), Communicator::barrier));
        assertTrue(e.getMessage().contains("compare-and-swap"), e.getMessage());
        LockstepException unknown = assertThrows(LockstepException.class, () -> run(
                options(2, true).with("lockstep.collectives.barrier", "tournament"), Communicator::barrier));
        assertEquals(ErrorClass.ARG, unknown.errorClass());
        assertTrue(unknown.getMessage().contains("tournament"), unknown.getMessage());
    }

    private static void noRankLeavesEarly(int ranks, JobOptions options, String what) {
        {
            AtomicInteger entered = new AtomicInteger();
            AtomicInteger early = new AtomicInteger();
            int rounds = 200;
            run(options, comm -> {
                for (int k = 1; k <= rounds; k++) {
                    entered.incrementAndGet();
                    comm.barrier();
                    if (entered.get() < k * ranks) {
                        early.incrementAndGet();
                    }
                    // a second barrier, so that no rank enters round k + 1 before all have checked round k
                    comm.barrier();
                }
            });
            assertEquals(0, early.get(), ranks + " ranks, " + what + ": ranks that left a barrier early");
            assertEquals(rounds * ranks, entered.get());
        }
    }

    /** Every size around the chunk and the native limit, every root, through the device. */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void bcastDeliversTheRootsBytesToEveryRank(int ranks) {
        long chunk = org.lockstep.pcie.layout.CollectiveAreaDescriptor.chunkBytes(ranks);
        long[] sizes = {1, 8, 63, chunk - 1, chunk, chunk + 1, 3 * chunk + 5, DeviceCollectives.BCAST_NATIVE_MAX_BYTES};
        run(options(ranks, true), comm -> {
            for (long n : sizes) {
                for (int root = 0; root < ranks; root++) {
                    long salt = n * 31 + root;
                    MemorySegment buffer = comm.rank() == root ? CollectiveTesting.pattern(root, n, salt) : CollectiveTesting.bytes(n + 16);
                    comm.bcast(buffer, n, Datatype.BYTE, root);
                    for (long i = 0; i < n; i++) {
                        if (buffer.get(ValueLayout.JAVA_BYTE, i) != CollectiveTesting.dataByte(root, i, salt)) {
                            throw new AssertionError("rank " + comm.rank() + ", root " + root + ", " + n + " bytes: byte " + i + " differs");
                        }
                    }
                    for (long i = n; i < buffer.byteSize(); i++) {
                        assertEquals(0, buffer.get(ValueLayout.JAVA_BYTE, i), "a byte past the count was written");
                    }
                }
            }
        });
    }

    /**
     * Floating-point sums whose value depends on the order of the additions: every rank gets the
     * same bits, and the bits of c0 + (c1 + (… + c(p−1))).
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 7})
    void allreduceIsBitIdenticalOnEveryRank(int ranks) {
        int count = 3000; // more than one chunk for 7 ranks
        ConcurrentHashMap<Integer, double[]> results = new ConcurrentHashMap<>();
        run(options(ranks, true), comm -> {
            double[] mine = contribution(comm.rank(), count);
            double[] sum = new double[count];
            comm.allreduce(MemorySegment.ofArray(mine), MemorySegment.ofArray(sum), count, Datatype.DOUBLE, Op.SUM);
            results.put(comm.rank(), sum);
        });
        double[] expected = new double[count];
        for (int i = 0; i < count; i++) {
            double acc = contribution(ranks - 1, count)[i];
            for (int r = ranks - 2; r >= 0; r--) {
                acc = contribution(r, count)[i] + acc;
            }
            expected[i] = acc;
        }
        for (int r = 0; r < ranks; r++) {
            assertArrayEquals(expected, results.get(r), "rank " + r);
        }
    }

    /**
     * Blocks around the native limit (to just past it), repeated so that both halves of the data
     * area are reused, in place and not: every rank gets block r of every sender, and nothing past
     * its own blocks is written.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 7})
    void alltoallDeliversEverySendersBlockForThisRank(int ranks) {
        long limit = DeviceCollectives.ALLTOALL_NATIVE_MAX_BYTES / ranks;
        long[] blocks = {1, 8, 24, limit, limit + 8};
        run(options(ranks, true), comm -> {
            for (int round = 0; round < 3; round++) {
                for (long block : blocks) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        long salt = block * 7 + round + (inPlace ? 1000 : 0);
                        MemorySegment send = CollectiveTesting.bytes(block * ranks);
                        for (int to = 0; to < ranks; to++) {
                            for (long i = 0; i < block; i++) {
                                send.set(ValueLayout.JAVA_BYTE, to * block + i, CollectiveTesting.dataByte(comm.rank() * 64 + to, i, salt));
                            }
                        }
                        MemorySegment recv = CollectiveTesting.bytes(block * ranks + 16);
                        if (inPlace) {
                            MemorySegment.copy(send, 0, recv, 0, block * ranks);
                        }
                        comm.alltoall(inPlace ? org.lockstep.api.Communicator.IN_PLACE : send, block, Datatype.BYTE, recv);
                        for (int from = 0; from < ranks; from++) {
                            for (long i = 0; i < block; i++) {
                                if (recv.get(ValueLayout.JAVA_BYTE, from * block + i) != CollectiveTesting.dataByte(from * 64 + comm.rank(), i, salt)) {
                                    throw new AssertionError("rank " + comm.rank() + ", block of " + block + " bytes from rank " + from
                                            + (inPlace ? " (in place)" : "") + ": byte " + i + " differs");
                                }
                            }
                        }
                        for (long i = block * ranks; i < recv.byteSize(); i++) {
                            assertEquals(0, recv.get(ValueLayout.JAVA_BYTE, i), "a byte past the blocks was written");
                        }
                    }
                }
            }
        });
    }

    private static double[] contribution(int rank, int count) {
        double[] d = new double[count];
        for (int i = 0; i < count; i++) {
            d[i] = (CollectiveTesting.mix(rank * 7919L + i) % 1000) * Math.pow(10, (rank * 5 + i) % 17 - 8);
        }
        return d;
    }

    /** 2×2 matrix products (mod 2^64) do not commute: the result is M0·M1·…·M(p−1), in place too. */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 8})
    void nonCommutativeAllreduceCombinesInRankOrder(int ranks) {
        Op product = Op.create((in, inout, count, type) -> {
            for (long m = 0; m < count / 4; m++) {
                long[] a = read(in, m);
                long[] b = read(inout, m);
                long[] c = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
                MemorySegment.copy(c, 0, inout, ValueLayout.JAVA_LONG_UNALIGNED, m * 32, 4);
            }
        }, false);
        int matrices = 50;
        ConcurrentHashMap<Integer, long[]> results = new ConcurrentHashMap<>();
        run(options(ranks, true), comm -> {
            long[] mine = matrices(comm.rank(), matrices);
            comm.allreduce(Communicator.IN_PLACE, MemorySegment.ofArray(mine), 4L * matrices, Datatype.LONG, product);
            results.put(comm.rank(), mine);
        });
        long[] expected = matrices(0, matrices);
        for (int r = 1; r < ranks; r++) {
            long[] next = matrices(r, matrices);
            for (int m = 0; m < matrices; m++) {
                long[] a = Arrays.copyOfRange(expected, 4 * m, 4 * m + 4);
                long[] b = Arrays.copyOfRange(next, 4 * m, 4 * m + 4);
                long[] c = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
                System.arraycopy(c, 0, expected, 4 * m, 4);
            }
        }
        for (int r = 0; r < ranks; r++) {
            assertArrayEquals(expected, results.get(r), "rank " + r);
        }
    }

    private static long[] read(MemorySegment s, long m) {
        long[] v = new long[4];
        MemorySegment.copy(s, ValueLayout.JAVA_LONG_UNALIGNED, m * 32, v, 0, 4);
        return v;
    }

    private static long[] matrices(int rank, int count) {
        long[] v = new long[4 * count];
        for (int i = 0; i < v.length; i++) {
            v[i] = CollectiveTesting.mix(rank * 1_000_003L + i) % 7;
        }
        return v;
    }

    /**
     * The world, a duplicate and the two halves of a split run native collectives interleaved, each
     * with its own data: no collective sees another's words (the halves share a context id).
     */
    @Test
    void communicatorsKeepTheirCollectivesApart() {
        int ranks = 6;
        run(options(ranks, true), world -> {
            Communicator dup = world.dup();
            Communicator half = world.split(world.rank() % 2, world.rank());
            for (int round = 0; round < 30; round++) {
                long[] w = {world.rank() + 1L};
                long[] d = {100L * (dup.rank() + 1)};
                long[] h = {10_000L * (half.rank() + 1) + world.rank() % 2};
                long[] ws = new long[1];
                long[] ds = new long[1];
                long[] hs = new long[1];
                long[] rootValue = {world.rank() % 2 == 0 ? 7 : 9};
                half.bcast(MemorySegment.ofArray(rootValue), 1, Datatype.LONG, round % half.size());
                world.allreduce(MemorySegment.ofArray(w), MemorySegment.ofArray(ws), 1, Datatype.LONG, Op.SUM);
                half.allreduce(MemorySegment.ofArray(h), MemorySegment.ofArray(hs), 1, Datatype.LONG, Op.SUM);
                dup.barrier();
                dup.allreduce(MemorySegment.ofArray(d), MemorySegment.ofArray(ds), 1, Datatype.LONG, Op.SUM);
                half.barrier();
                assertEquals(21, ws[0], "world sum");
                assertEquals(2100, ds[0], "dup sum");
                assertEquals(60_000 + 3L * (world.rank() % 2), hs[0], "half sum");
                assertEquals(world.rank() % 2 == 0 ? 7 : 9, rootValue[0], "bcast within the half");
            }
        });
    }

    /** A member that fails before it arrives fails the others' barrier, bcast, allreduce and alltoall with PROC_FAILED. */
    @ParameterizedTest
    @ValueSource(strings = {"barrier", "bcast", "allreduce", "alltoall", "counter-barrier", "leader-barrier", "flags-barrier",
        "leader-barrier-victim0"})
    void aFailedMemberFailsTheCollectiveInsteadOfHangingIt(String collective) {
        int ranks = collective.equals("counter-barrier") ? 9 : 3;
        JobOptions options = collective.contains("-barrier")
                ? options(ranks, true).with("lockstep.collectives.barrier", collective.substring(0, collective.indexOf('-')))
                : options(ranks, true);
        int victim = collective.endsWith("victim0") ? 0 : 1;
        ConcurrentHashMap<Integer, ProcessFailedException> seen = new ConcurrentHashMap<>();
        AtomicReference<Throwable> job = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> job.set(assertThrows(LockstepException.class, () ->
                CollectiveTesting.run(options, PointToPointCollectives.INSTANCE, comm -> {
                    comm.barrier(); // every rank is up
                    if (comm.rank() == victim) {
                        throw new IllegalStateException("rank " + victim + " fails on purpose");
                    }
                    seen.put(comm.rank(), assertThrows(ProcessFailedException.class, () -> {
                        for (int i = 0; i < 1_000_000; i++) {
                            switch (collective) {
                                case "bcast" -> comm.bcast(MemorySegment.ofArray(new long[4]), 4, Datatype.LONG, victim);
                                case "allreduce" -> comm.allreduce(MemorySegment.ofArray(new long[4]),
                                        MemorySegment.ofArray(new long[4]), 4, Datatype.LONG, Op.SUM);
                                case "alltoall" -> comm.alltoall(MemorySegment.ofArray(new long[ranks]), 1, Datatype.LONG,
                                        MemorySegment.ofArray(new long[ranks]));
                                default -> comm.barrier();
                            }
                        }
                    }));
                }))));
        assertTrue(job.get().getMessage() != null);
        assertEquals(ranks - 1, seen.size(), "every survivor saw the failure: " + seen.keySet());
        for (ProcessFailedException e : seen.values()) {
            assertEquals(ErrorClass.PROC_FAILED, e.errorClass());
            assertEquals(victim, e.failedRank(), e.getMessage());
        }
    }

    /** With the device-native collectives turned off the same calls still agree (the point-to-point ones run). */
    @Test
    void turningTheDeviceNativeCollectivesOffKeepsTheResults() {
        run(options(3, true).with("lockstep.collectives.native", "false"), comm -> {
            long[] v = {comm.rank() + 1L};
            long[] s = new long[1];
            comm.allreduce(MemorySegment.ofArray(v), MemorySegment.ofArray(s), 1, Datatype.LONG, Op.SUM);
            comm.barrier();
            assertEquals(6, s[0]);
        });
    }
}
