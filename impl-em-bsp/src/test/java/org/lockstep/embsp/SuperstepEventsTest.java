package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Op;
import org.lockstep.api.RankProgram;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoSnapshot;

/** Flight Recorder events of EM-BSP supersteps, recorded in-process, agree with the run's own per-superstep accounting. */
class SuperstepEventsTest {
    private static final int COLLECTIVES = 3;
    private static final int VPS = 6;
    /** VPS VPs on 2 cores: VPs waiting in a collective swap out for the others of their partition. */
    private static final JobOptions JOB = TestJobs.job(VPS, 2, 512 << 10, 4096).with(EmBspOptions.IO, "sync");

    /** COLLECTIVES allreduces, each checked: COLLECTIVES + 1 supersteps. */
    private static final RankProgram ALLREDUCES = world -> {
        MemorySegment mine = world.allocate(Long.BYTES);
        MemorySegment sum = world.allocate(Long.BYTES);
        for (int c = 0; c < COLLECTIVES; c++) {
            mine.set(ValueLayout.JAVA_LONG, 0, world.rank() + c);
            world.allreduce(mine, sum, 1, Datatype.LONG, Op.SUM);
            assertEquals(VPS * (VPS - 1) / 2 + (long) VPS * c, sum.get(ValueLayout.JAVA_LONG, 0), "allreduce " + c + " at VP " + world.rank());
        }
    };

    private record Recorded(RunReport report, List<RecordedEvent> supersteps) {
    }

    @Test
    void everySuperstepIsRecordedOnceWithTheBytesItSwappedInAndOut(@TempDir Path dir) throws IOException {
        Recorded run = record(dir, () -> Simulation.run(JOB, ALLREDUCES));
        RunReport report = run.report();
        assertEquals(COLLECTIVES + 1, report.supersteps());
        assertEquals(report.supersteps(), run.supersteps().size(), "one event per superstep: " + run.supersteps());
        for (int s = 0; s < run.supersteps().size(); s++) {
            RecordedEvent event = run.supersteps().get(s);
            IoSnapshot counted = report.perSuperstep().get(s);
            assertEquals(s, event.getInt("superstep"));
            assertEquals(0, event.getInt("realProcessor"));
            assertEquals(counted.bytes(IoCategory.SWAP_IN), event.getLong("swapInBytes"), "superstep " + s + ": " + event);
            assertEquals(counted.bytes(IoCategory.SWAP_OUT), event.getLong("swapOutBytes"), "superstep " + s + ": " + event);
            assertFalse(event.getDuration().isNegative(), event.toString());
        }
        assertEquals(report.total().bytes(IoCategory.SWAP_IN), sum(run, "swapInBytes"), "every swap-in belongs to a superstep");
        assertTrue(sum(run, "swapInBytes") > 0, "VPs were swapped in: " + report.keyValueLine());
        assertTrue(sum(run, "swapOutBytes") > 0, "VPs waited swapped out: " + report.keyValueLine());
    }

    /** Swaps in and out are equal in a healthy run; the kit's fault that writes every swap-out twice tells the two fields apart. */
    @Test
    void swapsInAndOutAreToldApart(@TempDir Path dir) throws IOException {
        Recorded run = record(dir, () -> Simulation.run(JOB.with(EmBspOptions.FAULTS, "swaps_twice"), ALLREDUCES));
        assertEquals(COLLECTIVES + 1, run.supersteps().size());
        assertTrue(sum(run, "swapInBytes") > 0, run.report().keyValueLine());
        assertEquals(2 * sum(run, "swapInBytes"), sum(run, "swapOutBytes"), "every swap-out counted twice: " + run.supersteps());
        assertEquals(run.report().total().bytes(IoCategory.SWAP_OUT), sum(run, "swapOutBytes"));
    }

    /** Two real processors (threads of this JVM over the mailbox transport): each records its own supersteps. */
    @Test
    void eachRealProcessorRecordsItsOwnSupersteps(@TempDir Path dir) throws IOException {
        Recorded run = record(dir, () -> RealProcessorsTest.run(JOB, 2, ALLREDUCES));
        for (int processor = 0; processor < 2; processor++) {
            int p = processor;
            List<Integer> numbers = run.supersteps().stream().filter(e -> e.getInt("realProcessor") == p)
                    .map(e -> e.getInt("superstep")).toList();
            assertEquals(List.of(0, 1, 2, 3), numbers, "real processor " + p + ": " + run.supersteps());
        }
        assertEquals(2 * (COLLECTIVES + 1), run.supersteps().size(), run.supersteps().toString());
        assertEquals(run.report().total().bytes(IoCategory.SWAP_IN), sum(run, "swapInBytes"), "the processors' swap-ins add up");
        assertEquals(run.report().total().bytes(IoCategory.SWAP_OUT), sum(run, "swapOutBytes"), "the processors' swap-outs add up");
    }

    /** Runs {@code job} under an in-process recording of org.lockstep.Superstep; its events in superstep order. */
    private static Recorded record(Path dir, Supplier<RunReport> job) throws IOException {
        Path file = dir.resolve("supersteps.jfr");
        RunReport report;
        try (Recording recording = new Recording()) {
            recording.enable("org.lockstep.Superstep");
            recording.start();
            report = job.get();
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> supersteps = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("org.lockstep.Superstep"))
                .sorted(Comparator.comparingInt((RecordedEvent e) -> e.getInt("realProcessor")).thenComparingInt(e -> e.getInt("superstep")))
                .toList();
        return new Recorded(report, supersteps);
    }

    private static long sum(Recorded run, String field) {
        return run.supersteps().stream().mapToLong(e -> e.getLong(field)).sum();
    }
}
