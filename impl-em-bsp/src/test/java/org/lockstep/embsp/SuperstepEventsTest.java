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

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Op;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoSnapshot;

/** Flight Recorder events of EM-BSP supersteps, recorded in-process, agree with the run's own per-superstep accounting. */
class SuperstepEventsTest {
    private static final int COLLECTIVES = 3;

    @Test
    void everySuperstepIsRecordedOnceWithTheBytesItSwappedInAndOut(@TempDir Path dir) throws IOException {
        // 6 VPs on 2 cores: VPs waiting in a collective swap out for the others of their partition
        JobOptions job = TestJobs.job(6, 2, 512 << 10, 4096).with(EmBspOptions.IO, "sync");
        Path file = dir.resolve("supersteps.jfr");
        RunReport report;
        try (Recording recording = new Recording()) {
            recording.enable("org.lockstep.Superstep");
            recording.start();
            report = Simulation.run(job, world -> {
                MemorySegment mine = world.allocate(Long.BYTES);
                MemorySegment sum = world.allocate(Long.BYTES);
                for (int c = 0; c < COLLECTIVES; c++) {
                    mine.set(ValueLayout.JAVA_LONG, 0, world.rank() + c);
                    world.allreduce(mine, sum, 1, Datatype.LONG, Op.SUM);
                    assertEquals(15 + 6L * c, sum.get(ValueLayout.JAVA_LONG, 0), "allreduce " + c + " at VP " + world.rank());
                }
            });
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> supersteps = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("org.lockstep.Superstep"))
                .sorted(Comparator.comparingInt(e -> e.getInt("superstep")))
                .toList();

        assertEquals(COLLECTIVES + 1, report.supersteps());
        assertEquals(report.supersteps(), supersteps.size(), "one event per superstep: " + supersteps);
        long swappedIn = 0;
        for (int s = 0; s < supersteps.size(); s++) {
            RecordedEvent event = supersteps.get(s);
            IoSnapshot counted = report.perSuperstep().get(s);
            assertEquals(s, event.getInt("superstep"));
            assertEquals(0, event.getInt("realProcessor"));
            assertEquals(counted.bytes(IoCategory.SWAP_IN), event.getLong("swapInBytes"), "superstep " + s + ": " + event);
            assertEquals(counted.bytes(IoCategory.SWAP_OUT), event.getLong("swapOutBytes"), "superstep " + s + ": " + event);
            assertFalse(event.getDuration().isNegative(), event.toString());
            swappedIn += event.getLong("swapInBytes");
        }
        assertEquals(report.total().bytes(IoCategory.SWAP_IN), swappedIn, "every swap-in belongs to a superstep");
        assertTrue(swappedIn > 0, "VPs were swapped in: " + report.keyValueLine());
        assertTrue(supersteps.stream().anyMatch(e -> e.getLong("swapOutBytes") > 0), "VPs waited swapped out: " + report.keyValueLine());
    }
}
