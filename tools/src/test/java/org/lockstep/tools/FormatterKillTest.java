package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Checkpoints;

/**
 * A rank killed (SIGKILL) while it formats the job's device, as the restart soak once hit in CI: the
 * format was left in progress for ever, every rank (the restarted one too) waited 30 s for it and
 * failed. Now a waiting rank sees the formatter gone and takes the format over, the killed rank is
 * restarted, and the job ends with the fault-free results. The kill is aimed by watching the device
 * file: the moment its format state says in progress and names its formatter, that process is killed.
 */
@Timeout(300)
class FormatterKillTest {
    private static final int RANKS = 4;
    private static final List<String> SMALL_JVM = List.of("-Xms48m", "-Xmx48m", "-XX:TieredStopAtLevel=1", "-Xshare:auto");
    /** Superblock words the watcher reads (SuperblockDescriptor, a provider's class: not imported here). */
    private static final int FORMAT_STATE_OFFSET = 64;
    private static final long FORMAT_IN_PROGRESS = 1;
    private static final long FORMAT_READY = 2;
    private static final int FORMATTER_PID_SHIFT = 41;
    /** Launches to try before giving up on catching a format in progress (each format lasts milliseconds). */
    private static final int ATTEMPTS = 8;

    /**
     * @param killedPid  the formatter the watcher killed (0: none)
     * @param formattedBy the process the superblock names as formatter once the format is ready (0: not seen)
     */
    record Launch(ProcessLauncher.Outcome outcome, String output, int killedRank, long killedPid, long formattedBy,
                  Map<Long, Integer> rankOfPid) {
    }

    @Test
    void aRankKilledWhileItFormatsTheDeviceIsTakenOverRestartedAndTheJobEndsWithTheFaultFreeResults() throws Exception {
        Launch reference = launch(false);
        assertEquals(0, reference.outcome().exitCode(), reference.output());
        List<CheckpointWorkload.Result> expected = CheckpointWorkload.Result.parseAll(reference.output(), RANKS);
        assertEquals(RANKS, expected.size(), reference.output());
        Launch trial = null;
        for (int attempt = 0; attempt < ATTEMPTS && trial == null; attempt++) {
            Launch l = launch(true);
            if (l.killedRank() >= 0 && l.formattedBy() != l.killedPid()) {
                trial = l;
            } else {
                // no kill, or the SIGKILL landed after the formatter had finished: not the case under test
                assertEquals(0, l.outcome().exitCode(), "a launch whose format was not interrupted: " + l.output());
            }
        }
        assertNotNull(trial, "no launch of " + ATTEMPTS + " had its formatter killed before it finished the format");
        String report = "killed rank " + trial.killedRank() + " (pid " + trial.killedPid() + ") while formatting; format finished by pid "
                + trial.formattedBy() + ":\n" + trial.output();
        assertEquals(0, trial.outcome().exitCode(), report);
        assertEquals(trial.killedRank(), trial.outcome().restarts().getFirst().rank(), report);
        assertEquals(Optional.empty(), CheckpointWorkload.compare(expected, CheckpointWorkload.Result.parseAll(trial.output(), RANKS), RANKS),
                report);
        assertFalse(trial.output().contains("was not formatted"), report);
        // Taken over, not waited out: another process of the job compared-and-set the formatter word and finished the format.
        assertTrue(trial.formattedBy() != 0 && trial.formattedBy() != trial.killedPid()
                && trial.rankOfPid().containsKey(trial.formattedBy()), "the format was taken over: " + report);
        assertTrue(trial.outcome().deviceRemoved(), report);
    }

    /** Runs the checkpoint workload with one restart allowed; with {@code killFormatter}, kills the rank seen formatting. */
    private static Launch launch(boolean killFormatter) throws IOException, InterruptedException {
        Path device = Path.of("/dev/shm", "lockstep-formatter-kill-" + Long.toHexString(System.nanoTime()));
        Map<String, String> properties = Map.of(Checkpoints.ENABLED_PROPERTY, "true", Checkpoints.RESTART_ON_FAILURE_PROPERTY, "true");
        ProcessLauncher.Job job = new ProcessLauncher.Job(RANKS, RestartSoak.WORKLOAD, List.of("60", "4"), Optional.of(device), properties,
                SMALL_JVM, List.of(), false, Duration.ofSeconds(10), false, killFormatter ? 1 : 0);
        ConcurrentMap<Long, Integer> rankOfPid = new ConcurrentHashMap<>();
        AtomicInteger killed = new AtomicInteger(-1);
        AtomicLong killedPid = new AtomicLong();
        AtomicLong formattedBy = new AtomicLong();
        AtomicBoolean ended = new AtomicBoolean();
        Thread watcher = Thread.ofPlatform().daemon().name("formatter-watch").unstarted(() -> watch(device, rankOfPid, killed, killedPid,
                formattedBy, ended));
        if (killFormatter) {
            watcher.start();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProcessLauncher.Outcome outcome;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            outcome = new ProcessLauncher(out, out).run(job, (rank, incarnation, process) -> rankOfPid.put(process.pid(), rank));
        } finally {
            ended.set(true);
            if (killFormatter) {
                watcher.join(Duration.ofSeconds(10));
            }
            Files.deleteIfExists(device);
        }
        return new Launch(outcome, bytes.toString(StandardCharsets.UTF_8), killed.get(), killedPid.get(), formattedBy.get(),
                Map.copyOf(rankOfPid));
    }

    /**
     * Spins on the device file's format words; kills the rank process named as formatter while the
     * format is in progress, then watches on until the format is ready and records who finished it.
     */
    private static void watch(Path device, Map<Long, Integer> rankOfPid, AtomicInteger killed, AtomicLong killedPid,
                              AtomicLong formattedBy, AtomicBoolean ended) {
        ByteBuffer words = ByteBuffer.allocate(2 * Long.BYTES).order(ByteOrder.nativeOrder());
        FileChannel channel = null;
        try {
            while (!ended.get()) {
                if (channel == null) {
                    try {
                        channel = FileChannel.open(device, StandardOpenOption.READ);
                    } catch (NoSuchFileException notYet) {
                        Thread.onSpinWait();
                        continue;
                    }
                }
                words.clear();
                boolean read = channel.read(words, FORMAT_STATE_OFFSET) == words.capacity();
                long formatter = words.getLong(Long.BYTES) >>> FORMATTER_PID_SHIFT;
                if (read && words.getLong(0) == FORMAT_IN_PROGRESS && killed.get() < 0) {
                    Integer rank = rankOfPid.get(formatter);
                    if (rank != null) {
                        ProcessHandle.of(formatter).ifPresent(ProcessHandle::destroyForcibly);
                        killedPid.set(formatter);
                        killed.set(rank);
                    }
                } else if (read && words.getLong(0) == FORMAT_READY) {
                    formattedBy.set(formatter);
                    return; // with no kill before: this launch ran without one
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // read-only
                }
            }
        }
    }
}
