package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.RankProgram;
import org.lockstep.embsp.io.IoCategory;

/**
 * Flight Recorder events of EM-BSP's I/O, recorded in-process: each swap of a context with its
 * direction and bytes (adding up to the run's own swap meters), each delivery into a context and
 * each pull out of one, with its bytes and whether it went through the disk.
 */
class SwapAndDeliveryEventsTest {
    private static final int VPS = 6;
    /** Not a multiple of the block: deliveries to swapped-out VPs have unaligned ends. */
    private static final int MESSAGE = 3000;

    /** A bcast of MESSAGE bytes from rank 0 (every other VP pulls it), then an alltoall of MESSAGE bytes a pair. */
    private static final RankProgram BCAST_THEN_ALLTOALL = world -> {
        int n = world.size();
        MemorySegment message = world.allocate(MESSAGE);
        MemorySegment send = world.allocate((long) n * MESSAGE);
        MemorySegment recv = world.allocate((long) n * MESSAGE);
        world.bcast(message, MESSAGE, Datatype.BYTE, 0);
        world.alltoall(send, MESSAGE, Datatype.BYTE, recv);
    };

    @Test
    void swapsAddUpToTheRunsSwapMetersByDirection(@TempDir Path dir) throws IOException {
        // the kit's fault that writes every swap-out twice makes out differ from in, so the directions are told apart
        JobOptions job = TestJobs.job(VPS, 2, 512 << 10, 4096).with(EmBspOptions.IO, "sync").with(EmBspOptions.FAULTS, "swaps_twice");
        Recorded run = record(dir, () -> Simulation.run(job, BCAST_THEN_ALLTOALL));
        List<RecordedEvent> swaps = run.ofType("org.lockstep.Swap");
        Map<String, Long> bytes = swaps.stream().collect(Collectors.groupingBy(e -> e.getString("direction"),
                Collectors.summingLong(e -> e.getLong("bytes"))));
        long in = bytes.getOrDefault("in", 0L) + bytes.getOrDefault("loan", 0L);
        assertEquals(run.report().total().bytes(IoCategory.SWAP_IN), in, "swaps in and loans: " + bytes);
        assertEquals(run.report().total().bytes(IoCategory.SWAP_OUT), bytes.getOrDefault("out", 0L), "swaps out: " + bytes);
        assertTrue(bytes.getOrDefault("in", 0L) > 0 && bytes.getOrDefault("out", 0L) > 0, bytes.toString());
        for (RecordedEvent swap : swaps) {
            int vp = swap.getInt("vp");
            assertTrue(vp >= 0 && vp < VPS, swap.toString());
            assertFalse(swap.getDuration().isNegative(), swap.toString());
        }
    }

    @Test
    void deliveriesAndPullsCarryTheMessageAndWhetherTheyWentThroughTheDisk(@TempDir Path dir) throws IOException {
        // six VPs in two partitions: most receivers are swapped out when their messages come
        // direct delivery (the small alltoall's message area off: it would touch no context)
        Recorded swapping = record(dir, () -> Simulation.run(TestJobs.job(VPS, 2, 512 << 10, 4096).with(EmBspOptions.IO, "sync")
                .with(EmBspOptions.STAGED_COLLECTIVE, "0"), BCAST_THEN_ALLTOALL));
        List<RecordedEvent> writes = swapping.moves("write");
        assertEquals(VPS * VPS, writes.size(), "one delivery per alltoall message, its own included: " + writes);
        assertEquals(Map.of(0, 6L, 1, 6L, 2, 6L, 3, 6L, 4, 6L, 5, 6L),
                writes.stream().collect(Collectors.groupingBy(e -> e.getInt("vp"), Collectors.counting())), "by receiver");
        assertTrue(writes.stream().allMatch(e -> e.getLong("bytes") == MESSAGE), writes.toString());
        assertTrue(writes.stream().anyMatch(e -> e.getBoolean("onDisk")), "into contexts on disk: " + writes);
        List<RecordedEvent> reads = swapping.moves("read");
        assertEquals(VPS - 1, reads.size(), "every VP but the root pulls the bcast: " + reads);
        assertTrue(reads.stream().allMatch(e -> e.getInt("vp") == 0 && e.getLong("bytes") == MESSAGE), reads.toString());

        // a partition for every VP: nothing is swapped out, every move is a memory copy
        Recorded resident = record(dir, () -> Simulation.run(TestJobs.job(VPS, VPS, 512 << 10, 4096).with(EmBspOptions.IO, "sync")
                .with(EmBspOptions.STAGED_COLLECTIVE, "0"), BCAST_THEN_ALLTOALL));
        assertEquals(VPS * VPS, resident.moves("write").size());
        assertTrue(resident.ofType("org.lockstep.Delivery").stream().noneMatch(e -> e.getBoolean("onDisk")),
                resident.ofType("org.lockstep.Delivery").toString());
    }

    @Test
    void aLazySwapInReadsWhatTheVpsBeforeRewroteInWholeAndTheRestByFaults(@TempDir Path dir) throws IOException {
        long state = 2L << 20;
        JobOptions job = TestJobs.job(VPS, 2, state + (1 << 20), 4096).with(EmBspOptions.IO, "async")
                .with(EmBspOptions.DIRECT, "true").with(EmBspOptions.LAZY_SWAP_IN, "true");
        int rounds = 3;
        Recorded run = record(dir, () -> Simulation.run(job, world -> {
            MemorySegment values = world.allocate(state);
            long longs = state / 8;
            for (long i = 0; i < longs; i++) {
                values.setAtIndex(ValueLayout.JAVA_LONG, i, world.rank() * longs + i);
            }
            for (int round = 1; round <= rounds; round++) {
                world.barrier();
                for (long i = 0; i < longs; i++) { // every page read and rewritten after the swap-in
                    values.setAtIndex(ValueLayout.JAVA_LONG, i, values.getAtIndex(ValueLayout.JAVA_LONG, i) + 1);
                }
            }
            world.barrier();
            for (long i = 0; i < longs; i++) {
                assertEquals(world.rank() * longs + i + rounds, values.getAtIndex(ValueLayout.JAVA_LONG, i), "long " + i);
            }
        }));
        Map<String, Long> bytes = run.ofType("org.lockstep.Swap").stream().collect(Collectors.groupingBy(e -> e.getString("direction"),
                Collectors.summingLong(e -> e.getLong("bytes"))));
        // the first VPs swapped in at a superstep map the state and fault it in; those after them read it whole at once
        assertTrue(bytes.getOrDefault("in", 0L) >= (VPS - 4) * state, "read at swap-ins: " + bytes);
        assertTrue(bytes.getOrDefault("in, lazily", 0L) >= state, "read by faults: " + bytes);
        // (the reads of the contexts still resident at the end are counted when they are discarded, with no event)
        assertTrue(run.report().total().bytes(IoCategory.SWAP_IN) >= bytes.getOrDefault("in", 0L) + bytes.getOrDefault("in, lazily", 0L),
                "swap-ins: " + bytes);
    }

    private record Recorded(RunReport report, List<RecordedEvent> events) {
        List<RecordedEvent> ofType(String name) {
            return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
        }

        List<RecordedEvent> moves(String direction) {
            return ofType("org.lockstep.Delivery").stream().filter(e -> e.getString("direction").equals(direction)).toList();
        }
    }

    /** Runs {@code job} under an in-process recording of every swap and delivery. */
    private static Recorded record(Path dir, Supplier<RunReport> job) throws IOException {
        Path file = Files.createTempFile(dir, "io", ".jfr");
        RunReport report;
        try (Recording recording = new Recording()) {
            recording.enable("org.lockstep.Swap");
            recording.enable("org.lockstep.Delivery").withThreshold(Duration.ZERO);
            recording.start();
            report = job.get();
            recording.stop();
            recording.dump(file);
        }
        return new Recorded(report, RecordingFile.readAllEvents(file));
    }
}
