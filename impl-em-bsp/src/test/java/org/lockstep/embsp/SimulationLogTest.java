package org.lockstep.embsp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;

/**
 * What the simulator says goes to a {@code System.Logger}, not to standard error: its progress
 * lines reach the logger named after {@link Simulation} (seen here through the JDK's default
 * backend, java.util.logging), and a job that fails as the test expects logs and prints nothing.
 */
class SimulationLogTest {
    private static final String LOGGER = Simulation.class.getName();
    private static final JobOptions JOB = TestJobs.job(4, 2, 256 << 10, 4096).with(EmBspOptions.IO, "sync");

    @Test
    void progressLinesReachTheSimulationsSystemLogger() {
        Logger logger = Logger.getLogger(LOGGER);
        Capture capture = new Capture();
        logger.addHandler(capture);
        logger.setUseParentHandlers(false); // the records are checked here, not printed
        try {
            Simulation.run(JOB.with(EmBspOptions.PROGRESS, "1"), world -> {
                if (world.rank() == 0) {
                    // the job lasts until the progress thread has logged once (it logs every second)
                    await().atMost(Duration.ofSeconds(30)).until(() -> !capture.records.isEmpty());
                }
                world.barrier();
            });
        } finally {
            logger.removeHandler(capture);
            logger.setUseParentHandlers(true);
        }
        LogRecord progress = capture.records.get(0);
        assertEquals(Level.INFO, progress.getLevel());
        String line = new SimpleFormatter().formatMessage(progress);
        assertTrue(line.startsWith("embsp: ") && line.contains("superstep") && line.contains("of 4 VPs running"), line);
    }

    @Test
    void aJobThatFailsAsExpectedLogsAndPrintsNothing() {
        Logger root = Logger.getLogger("");
        Capture capture = new Capture();
        root.addHandler(capture);
        PrintStream standardError = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        LockstepException failure;
        try {
            System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
            failure = assertThrows(LockstepException.class, () -> Simulation.run(JOB.with(EmBspOptions.PROGRESS, "0"), world -> {
                long[] one = new long[1];
                world.send(MemorySegment.ofArray(one), 1, Datatype.LONG, world.size(), 0); // no such rank
            }));
        } finally {
            System.setErr(standardError);
            root.removeHandler(capture);
        }
        assertEquals(ErrorClass.RANK, failure.errorClass(), failure.toString());
        assertEquals(List.of(), capture.records.stream().map(r -> r.getLoggerName() + ": " + r.getMessage()).toList());
        assertEquals("", printed.toString(StandardCharsets.UTF_8));
    }

    /** Keeps every record it is given. */
    private static final class Capture extends Handler {
        final List<LogRecord> records = new CopyOnWriteArrayList<>();

        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
