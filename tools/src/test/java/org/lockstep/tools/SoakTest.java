package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A few trials of each soak, bounded for CI: kill -9 of a random rank of 4 launched processes at
 * a random moment, restarted by the launcher; and power loss of the emulated device under 4 ranks
 * in threads. Every trial's results must equal the fault-free run's.
 */
class SoakTest {
    private static final List<String> SMALL_JVM = List.of("-Xms48m", "-Xmx48m", "-XX:TieredStopAtLevel=1", "-Xshare:auto");

    @Test
    @Timeout(240)
    void killedRanksRecoverFromTheirOwnCheckpointsWithTheFaultFreeResults() {
        List<String> lines = new ArrayList<>();
        RestartSoak soak = new RestartSoak(new RestartSoak.Settings(4, 2, 150, 4, 20261202L, SMALL_JVM, Map.of()), lines::add);
        SoakSummary summary = soak.run();
        String report = String.join("\n", lines) + "\n" + summary.line();
        assertEquals(2, summary.trials().size(), report);
        assertTrue(summary.allPassed(), report);
        assertTrue(summary.faulted() >= 1, "at least one kill found its rank alive: " + report);
        assertEquals("trials=2 passed=2 lost=0 duplicated=0", summary.line());
    }

    @Test
    @Timeout(240)
    void afterPowerLossEveryRankResumesFromItsOwnCheckpointWithTheFaultFreeResults() {
        List<String> lines = new ArrayList<>();
        PowerLossSoak soak = new PowerLossSoak(new PowerLossSoak.Settings(4, 4, 60, 3, 20261202L, true, Map.of()), lines::add);
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
        SoakSummary summary;
        try {
            summary = soak.run();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
        assertEquals(List.of(), uncaught, "an expected power loss escapes no thread as an uncaught trace");
        String report = String.join("\n", lines) + "\n" + summary.line();
        assertEquals(4, summary.trials().size(), report);
        assertTrue(summary.allPassed(), report);
        assertTrue(summary.faulted() >= 3, "power was lost before the end in most trials: " + report);
        assertEquals("trials=4 passed=4 lost=0 duplicated=0", summary.line(), report);
    }
}
