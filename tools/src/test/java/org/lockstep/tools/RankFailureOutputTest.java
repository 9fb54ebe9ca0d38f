package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A typed failure in every rank is one line per rank on the launcher's standard error; --verbose keeps the traces. */
@Timeout(240)
class RankFailureOutputTest {
    private static String launchErr(boolean verbose) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            ProcessLauncher.Outcome outcome = new ProcessLauncher(o, e).verbose(verbose)
                    .run(DeviceOwnershipTest.job(2, Optional.empty(), false, "typed-failure"));
            assertEquals(1, outcome.exitCode());
        }
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void eachRanksTypedFailureIsOneLineWithoutItsTrace() {
        String err = launchErr(false);
        for (int rank = 0; rank < 2; rank++) {
            String expected = "[" + rank + "] failed: LockstepException: [MPI_ERR_ARG] rank " + rank
                    + " rejects its input (--verbose shows the stack trace)";
            assertEquals(1, err.lines().filter(expected::equals).count(), err);
        }
        assertFalse(err.lines().anyMatch(l -> l.contains("\tat ") || l.contains("Exception in thread")), err);
    }

    @Test
    void verboseShowsEachRanksTrace() {
        List<String> lines = launchErr(true).lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("[0] \tat ")), String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("[1] Exception in thread \"main\"")), String.join("\n", lines));
    }
}
