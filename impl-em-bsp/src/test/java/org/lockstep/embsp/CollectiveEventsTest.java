package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Op;
import org.lockstep.api.RankProgram;

/** Flight Recorder events of EM-BSP collectives, recorded in-process: each names the PEMS2 family that ran it. */
class CollectiveEventsTest {
    private static final int VPS = 4;
    private static final long COUNT = 3;
    private static final JobOptions JOB = TestJobs.job(VPS, 2, 512 << 10, 4096).with(EmBspOptions.IO, "sync");

    /** One call of each family, COUNT longs a rank. */
    private static final RankProgram ONE_OF_EACH = world -> {
        int n = world.size();
        MemorySegment mine = world.allocate(COUNT * Long.BYTES);
        MemorySegment all = world.allocate(n * COUNT * Long.BYTES);
        MemorySegment out = world.allocate(n * COUNT * Long.BYTES);
        world.barrier();
        world.bcast(mine, COUNT, Datatype.LONG, 0);
        world.gather(mine, COUNT, Datatype.LONG, all, 0);
        world.scatter(all, COUNT, Datatype.LONG, mine, 0);
        world.allgather(mine, COUNT, Datatype.LONG, all);
        world.alltoall(all, COUNT, Datatype.LONG, out);
        world.allreduce(mine, out, COUNT, Datatype.LONG, Op.SUM);
        world.scan(mine, out, COUNT, Datatype.LONG, Op.SUM);
    };

    private static final Map<String, String> FAMILIES = Map.of(
            "barrier", "em-bsp counting barrier",
            "bcast", "em-bsp pull bcast",
            "gather", "em-bsp direct delivery gather",
            "scatter", "em-bsp pull scatter",
            "allgather", "em-bsp pairwise allgather",
            "alltoall", "em-bsp direct delivery alltoall",
            "allreduce", "em-bsp rank-order fold",
            "scan", "em-bsp rank-order prefix");

    @Test
    void eachCollectiveNamesItsFamilyWithTheRankSizeAndBytes(@TempDir Path dir) throws IOException {
        // the small calls' message area off: the families that serve calls of any size
        List<RecordedEvent> events = record(dir, () -> Simulation.run(JOB.with(EmBspOptions.STAGED_COLLECTIVE, "0"), ONE_OF_EACH));
        assertEquals(FAMILIES, algorithms(events));
        assertEquals(FAMILIES.size() * VPS, events.size(), "one event per call and VP: " + events);
        for (String operation : FAMILIES.keySet()) {
            Set<Integer> ranks = new TreeSet<>();
            for (RecordedEvent e : ofOperation(events, operation)) {
                ranks.add(e.getInt("rank"));
                assertEquals(VPS, e.getInt("size"), e.toString());
                long expected = operation.equals("barrier") ? 0 : operation.equals("alltoall") ? VPS * COUNT * Long.BYTES : COUNT * Long.BYTES;
                assertEquals(expected, e.getLong("bytes"), e.toString());
            }
            assertEquals(Set.of(0, 1, 2, 3), ranks, operation);
        }
    }

    @Test
    void smallAllgatherAndAlltoallNameTheMessageArea(@TempDir Path dir) throws IOException {
        Map<String, String> names = algorithms(record(dir, () -> Simulation.run(JOB, ONE_OF_EACH)));
        assertEquals("em-bsp staged allgather (message area)", names.get("allgather"));
        assertEquals("em-bsp staged alltoall (message area)", names.get("alltoall"));
    }

    @Test
    void acrossRealProcessorsTheSpanningFamiliesAreNamed(@TempDir Path dir) throws IOException {
        List<RecordedEvent> events = record(dir, () -> RealProcessorsTest.run(JOB, 2, ONE_OF_EACH));
        Map<String, String> spanning = new TreeMap<>();
        FAMILIES.forEach((operation, family) -> spanning.put(operation, family + " across processors"));
        assertEquals(spanning, algorithms(events));
        assertEquals(FAMILIES.size() * VPS, events.size(), "one event per call and VP: " + events);
    }

    @Test
    void pems1IndirectDeliveryIsNamedForTheAlltoall(@TempDir Path dir) throws IOException {
        List<RecordedEvent> events = record(dir, () -> Simulation.run(JOB.with(EmBspOptions.DELIVERY, "indirect"), ONE_OF_EACH));
        assertEquals("em-bsp indirect area alltoall (PEMS1)", algorithms(events).get("alltoall"));
    }

    @Test
    void theNonBlockingFormsNameTheirFamiliesOnOneProcessorAndAcross(@TempDir Path dir) throws IOException {
        RankProgram nonBlocking = world -> {
            MemorySegment mine = world.allocate(COUNT * Long.BYTES);
            MemorySegment out = world.allocate(COUNT * Long.BYTES);
            world.ibarrier().await();
            world.ibcast(mine, COUNT, Datatype.LONG, 0).await();
            world.iallreduce(mine, out, COUNT, Datatype.LONG, Op.SUM).await();
        };
        Map<String, String> native3 = new TreeMap<>(FAMILIES);
        native3.keySet().retainAll(Set.of("barrier", "bcast", "allreduce"));
        List<RecordedEvent> local = record(dir, () -> Simulation.run(JOB, nonBlocking));
        assertEquals(native3, algorithms(local));
        assertEquals(Set.of("non-blocking"), local.stream().map(e -> e.getString("kind")).collect(Collectors.toSet()));
        assertEquals(native3.size() * VPS, local.size(), "one event per call and VP: " + local);

        Map<String, String> spanning = new TreeMap<>();
        native3.forEach((operation, family) -> spanning.put(operation, family + " across processors"));
        assertEquals(spanning, algorithms(record(dir, () -> RealProcessorsTest.run(JOB, 2, nonBlocking))));
    }

    /** Each operation's algorithm, which must be the same for every event of it. */
    private static Map<String, String> algorithms(List<RecordedEvent> events) {
        Map<String, Set<String>> named = events.stream().collect(Collectors.groupingBy(e -> e.getString("operation"),
                TreeMap::new, Collectors.mapping(e -> e.getString("algorithm"), Collectors.toCollection(TreeSet::new))));
        Map<String, String> algorithms = new TreeMap<>();
        named.forEach((operation, names) -> {
            assertEquals(1, names.size(), operation + " named alike by every VP: " + names);
            algorithms.put(operation, names.iterator().next());
        });
        return algorithms;
    }

    private static List<RecordedEvent> ofOperation(List<RecordedEvent> events, String operation) {
        return events.stream().filter(e -> e.getString("operation").equals(operation)).toList();
    }

    /** Runs {@code job} under an in-process recording of org.lockstep.Collective; its events. */
    private static List<RecordedEvent> record(Path dir, Runnable job) throws IOException {
        Path file = Files.createTempFile(dir, "collectives", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("org.lockstep.Collective");
            recording.start();
            job.run();
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("org.lockstep.Collective"))
                .toList();
    }
}
