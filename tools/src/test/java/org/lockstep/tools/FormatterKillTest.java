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
    private static final int FORMATTER_PID_SHIFT = 41;
    /** Launches to try before giving up on catching a format in progress (each format lasts milliseconds). */
    private static final int ATTEMPTS = 8;

    record Launch(ProcessLauncher.Outcome outcome, String output, Duration elapsed, int killedRank) {
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
            if (l.killedRank() >= 0) {
                trial = l;
            } else {
                assertEquals(0, l.outcome().exitCode(), "a launch with no kill: " + l.output());
            }
        }
        assertNotNull(trial, "no launch of " + ATTEMPTS + " showed its format in progress to the watcher");
        String report = "killed rank " + trial.killedRank() + " while formatting, " + trial.elapsed().toMillis() + " ms:\n"
                + trial.output();
        assertEquals(0, trial.outcome().exitCode(), report);
        assertEquals(trial.killedRank(), trial.outcome().restarts().getFirst().rank(), report);
        assertEquals(Optional.empty(), CheckpointWorkload.compare(expected, CheckpointWorkload.Result.parseAll(trial.output(), RANKS), RANKS),
                report);
        assertFalse(trial.output().contains("was not formatted"), report);
        assertTrue(trial.elapsed().compareTo(Duration.ofSeconds(25)) < 0, "the format was taken over, not waited out: " + report);
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
        AtomicBoolean ended = new AtomicBoolean();
        Thread watcher = Thread.ofPlatform().daemon().name("formatter-watch").unstarted(() -> watch(device, rankOfPid, killed, ended));
        if (killFormatter) {
            watcher.start();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long start = System.nanoTime();
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
        return new Launch(outcome, bytes.toString(StandardCharsets.UTF_8), Duration.ofNanos(System.nanoTime() - start), killed.get());
    }

    /** Spins on the device file's format words; kills the rank process named as formatter while the format is in progress. */
    private static void watch(Path device, Map<Long, Integer> rankOfPid, AtomicInteger killed, AtomicBoolean ended) {
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
                if (channel.read(words, FORMAT_STATE_OFFSET) == words.capacity() && words.getLong(0) == FORMAT_IN_PROGRESS) {
                    Integer rank = rankOfPid.get(words.getLong(Long.BYTES) >>> FORMATTER_PID_SHIFT);
                    if (rank != null) {
                        ProcessHandle.of(words.getLong(Long.BYTES) >>> FORMATTER_PID_SHIFT).ifPresent(ProcessHandle::destroyForcibly);
                        killed.set(rank);
                        return;
                    }
                } else if (words.position() == words.capacity() && words.getLong(0) > FORMAT_IN_PROGRESS) {
                    return; // formatted before the watcher saw it in progress: this launch runs without a kill
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
