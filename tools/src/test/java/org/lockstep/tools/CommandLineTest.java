package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

/** Parsing and exit codes of the command line, without running a job. */
class CommandLineTest {
    /** Output of one run of the command. */
    record Run(int exitCode, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = LockstepCommand.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void badSizesAreAUsageError() {
        Run r = run("bench", "pingpong", "--sizes", "8..lots");
        assertEquals(LockstepCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("8..lots") || r.err().contains("lots"), r.err());
        assertTrue(r.err().contains("Usage:"), r.err());
    }

    @Test
    void aBadCollectiveRowIsAUsageErrorBeforeAnyRankRuns() {
        for (String row : new String[] {"foo:8", "allreduce:lots", "bcast"}) {
            Run r = run("bench", "collectives", "--row", row);
            assertEquals(LockstepCommand.USAGE, r.exitCode(), row + ": " + r.err());
            assertTrue(r.err().contains("--row " + row), r.err());
        }
    }

    @Test
    void unknownSubcommandIsAUsageError() {
        assertEquals(LockstepCommand.USAGE, run("frobnicate").exitCode());
    }

    @Test
    void runWithoutAProgramIsAUsageError() {
        assertEquals(LockstepCommand.USAGE, run("run", "-n", "2").exitCode());
    }

    @Test
    void tooFewRanksIsAUsageError() {
        Run r = run("example", "-n", "1");
        assertEquals(LockstepCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("at least 2 ranks"), r.err());
    }

    @Test
    void badThresholdIsAUsageError() {
        assertEquals(LockstepCommand.USAGE, run("example", "--threshold", "big").exitCode());
    }

    @Test
    void helpListsTheSubcommands() {
        Run r = run("--help");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().contains("example") && r.out().contains("bench") && r.out().contains("providers"), r.out());
    }

    @Test
    void unknownProviderIsAFailedRunWithTheMessageOnStderr() {
        Run r = run("example", "-n", "2", "--provider", "no-such-provider");
        assertEquals(LockstepCommand.FAILED, r.exitCode());
        assertTrue(r.err().contains("no-such-provider"), r.err());
    }
}
