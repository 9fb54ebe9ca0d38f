package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.CollectiveAreaDescriptor;
import org.lockstep.spi.collective.PointToPointCollectives;

/**
 * The blocking neighbourhood allgather and alltoall of a Cartesian communicator on the mailbox
 * transport, which run on the device (written once through the collective area) when a rank's
 * blocks fit a data half and as point-to-point schedules above: on grids with edges, with a rank
 * that is both neighbours of a dimension (periodic, 2 wide) or its own (periodic, 1 wide), with
 * contiguous and strided blocks, around the limit, repeated so that both halves are reused. Every
 * block lands where MPI 4.1 §8.6 puts it, gaps and PROC_NULL blocks are left alone.
 */
class NeighborExchangeTest {
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final long UNTOUCHED = 0x5A5A5A5A5A5A5A5AL;
    private static final String ON_DEVICE = "device neighbour exchange, written once";
    private static final String POINT_TO_POINT = "point-to-point neighbour exchange";

    static Stream<Arguments> grids() {
        return Stream.of(
                Arguments.of(new int[] {1}, new boolean[] {true}),
                Arguments.of(new int[] {2}, new boolean[] {true}),
                Arguments.of(new int[] {1, 2}, new boolean[] {false, false}),
                Arguments.of(new int[] {3}, new boolean[] {true}),
                Arguments.of(new int[] {2, 2}, new boolean[] {false, false}),
                Arguments.of(new int[] {2, 2}, new boolean[] {true, false}),
                Arguments.of(new int[] {2, 2, 2}, new boolean[] {false, true, false}));
    }

    @ParameterizedTest(name = "dims {0}, periods {1}")
    @MethodSource("grids")
    void everyBlockLandsWhereTheStandardPutsItOnAndOffTheDevice(int[] dims, boolean[] periods) {
        int ranks = Arrays.stream(dims).reduce(1, (a, b) -> a * b);
        int blocks = 2 * dims.length;
        long limit = CollectiveAreaDescriptor.chunkBytes(ranks) / blocks / Long.BYTES; // longs a block on the device
        long[] lengths = {1, 3, limit, limit + 1};
        assertTimeoutPreemptively(BOUND, () -> CollectiveTesting.run(CollectiveTesting.options(ranks), PointToPointCollectives.INSTANCE,
                world -> {
                    CartesianCommunicator grid = world.createCart(dims, periods, false);
                    int[] sources = sources(grid);
                    long salt = 0;
                    for (int round = 0; round < 2; round++) {
                        for (long m : lengths) {
                            for (boolean strided : new boolean[] {false, true}) {
                                for (boolean alltoall : new boolean[] {true, false}) {
                                    exchangeAndCheck(grid, sources, m, strided, alltoall, ++salt);
                                }
                            }
                        }
                    }
                    grid.close();
                }));
    }

    /** Small blocks go by the device, blocks past a data half and turned-off native collectives by messages. */
    @Test
    void theDeviceRunsTheExchangesThatFitAndMessagesTheOthers(@TempDir Path dir) throws IOException {
        long limit = CollectiveAreaDescriptor.chunkBytes(2) / 2 / Long.BYTES;
        for (boolean nativeOn : new boolean[] {true, false}) {
            List<RecordedEvent> events = recorded(dir.resolve("events-" + nativeOn + ".jfr"), () -> CollectiveTesting.run(
                    CollectiveTesting.options(2).with("lockstep.collectives.native", Boolean.toString(nativeOn)),
                    PointToPointCollectives.INSTANCE, world -> {
                        CartesianCommunicator ring = world.createCart(new int[] {2}, new boolean[] {true}, false);
                        int[] sources = sources(ring);
                        exchangeAndCheck(ring, sources, 4, false, true, 1);
                        exchangeAndCheck(ring, sources, limit + 1, false, true, 2);
                        exchangeAndCheck(ring, sources, 4, true, false, 3);
                        ring.close();
                    }));
            for (int rank = 0; rank < 2; rank++) {
                int r = rank;
                List<String> algorithms = events.stream()
                        .filter(e -> e.getInt("rank") == r && e.getString("operation").startsWith("neighbor"))
                        .map(e -> e.getString("operation") + ": " + e.getString("algorithm")).toList();
                List<String> expected = nativeOn
                        ? List.of("neighbor_alltoall: " + ON_DEVICE, "neighbor_alltoall: " + POINT_TO_POINT, "neighbor_allgather: " + ON_DEVICE)
                        : List.of("neighbor_alltoall: " + POINT_TO_POINT, "neighbor_alltoall: " + POINT_TO_POINT,
                                "neighbor_allgather: " + POINT_TO_POINT);
                assertEquals(expected, algorithms, "rank " + rank + ", native " + nativeOn);
            }
        }
    }

    /** A rank whose send blocks are longer than the blocks it receives fails with TRUNCATE; its neighbour does not wait for ever. */
    @Test
    void sendBlocksLongerThanTheReceiveBlocksAreATruncation() {
        assertTimeoutPreemptively(BOUND, () -> CollectiveTesting.run(CollectiveTesting.options(2), PointToPointCollectives.INSTANCE,
                world -> {
                    CartesianCommunicator ring = world.createCart(new int[] {2}, new boolean[] {true}, false);
                    long sent = ring.rank() == 0 ? 2 : 1;
                    MemorySegment send = MemorySegment.ofArray(new long[(int) (2 * sent)]);
                    MemorySegment recv = MemorySegment.ofArray(new long[2]);
                    if (ring.rank() == 0) {
                        LockstepException e = assertThrows(LockstepException.class,
                                () -> ring.neighborAlltoall(send, sent, Datatype.LONG, recv, 1, Datatype.LONG));
                        assertEquals(ErrorClass.TRUNCATE, e.errorClass(), e.getMessage());
                    } else {
                        ring.neighborAlltoall(send, sent, Datatype.LONG, recv, 1, Datatype.LONG);
                    }
                    ring.barrier();
                    ring.close();
                }));
    }

    /** MPI's neighbour order on a grid: per dimension the rank below (source of a shift up), then the one above. */
    private static int[] sources(CartesianCommunicator grid) {
        int[] sources = new int[2 * grid.dimensions()];
        for (int d = 0; d < grid.dimensions(); d++) {
            CartesianCommunicator.Shift shift = grid.shift(d, 1);
            sources[2 * d] = shift.source();
            sources[2 * d + 1] = shift.destination();
        }
        return sources;
    }

    /**
     * One exchange of blocks of {@code m} longs, contiguous or every other long (a vector type), and
     * its check: block i from neighbour s is the block s sent towards this rank (its block i ^ 1 in
     * an alltoall, its only one in an allgather); gaps and PROC_NULL blocks keep their fill.
     */
    private static void exchangeAndCheck(CartesianCommunicator grid, int[] sources, long m, boolean strided, boolean alltoall, long salt) {
        int blocks = sources.length;
        Datatype type = strided ? Datatype.vector(Math.toIntExact(m), 1, 2, Datatype.LONG).commit() : Datatype.LONG;
        long count = strided ? 1 : m;
        long span = strided ? 2 * m - 1 : m; // longs a block spans
        int me = grid.rank();
        long[] send = new long[Math.toIntExact((alltoall ? blocks : 1) * span)];
        Arrays.fill(send, UNTOUCHED);
        for (int j = 0; j < (alltoall ? blocks : 1); j++) {
            for (long k = 0; k < m; k++) {
                send[Math.toIntExact(j * span + (strided ? 2 * k : k))] = value(me, j, k, salt);
            }
        }
        long[] recv = new long[Math.toIntExact(blocks * span + 2)];
        Arrays.fill(recv, UNTOUCHED);
        MemorySegment in = MemorySegment.ofArray(send).asReadOnly();
        if (alltoall) {
            grid.neighborAlltoall(in, count, type, MemorySegment.ofArray(recv), count, type);
        } else {
            grid.neighborAllgather(in, count, type, MemorySegment.ofArray(recv), count, type);
        }
        String what = (alltoall ? "alltoall" : "allgather") + " of " + m + (strided ? " strided" : "") + " longs at rank " + me;
        for (int i = 0; i < blocks; i++) {
            for (long k = 0; k < span; k++) {
                boolean element = !strided || k % 2 == 0;
                long expected = sources[i] == Communicator.PROC_NULL || !element ? UNTOUCHED
                        : value(sources[i], alltoall ? i ^ 1 : 0, strided ? k / 2 : k, salt);
                if (recv[Math.toIntExact(i * span + k)] != expected) {
                    throw new AssertionError(what + ": block " + i + " (from " + sources[i] + "), long " + k + " is "
                            + recv[Math.toIntExact(i * span + k)] + ", expected " + expected);
                }
            }
        }
        assertEquals(UNTOUCHED, recv[recv.length - 2], what + ": a long past the blocks was written");
        assertEquals(UNTOUCHED, recv[recv.length - 1], what + ": a long past the blocks was written");
        if (strided) {
            type.free();
        }
    }

    private static long value(int rank, int block, long k, long salt) {
        return CollectiveTesting.mix(((salt * 64 + rank) * 16 + block) * 1_000_003L + k);
    }

    private static List<RecordedEvent> recorded(Path file, Runnable world) throws IOException {
        try (Recording recording = new Recording()) {
            recording.enable("org.lockstep.Collective").withThreshold(Duration.ZERO);
            recording.start();
            assertTimeoutPreemptively(BOUND, world::run);
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("org.lockstep.Collective")).toList();
    }
}
