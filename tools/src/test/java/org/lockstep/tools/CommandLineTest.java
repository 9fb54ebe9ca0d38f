package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

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
    void aPingPongOfOneProcessIsAUsageError() {
        Run r = run("bench", "pingpong", "--processes", "1");
        assertEquals(LockstepCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("--processes must be at least 2, got 1"), r.err());
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
    void aMisspeltJobPropertyFailsOnceBeforeAnyRankStartsAndNamesTheNearestKnownOne() {
        Run r = run("run", "-n", "2", "-o", "lockstep.mailbox.slotz=4", "org.lockstep.tools.ExchangeExample");
        assertEquals(LockstepCommand.FAILED, r.exitCode(), r.err());
        assertEquals(List.of("lockstep run: [MPI_ERR_ARG] unknown job property 'lockstep.mailbox.slotz' (did you mean"
                + " lockstep.mailbox.slots?); no installed provider reads it"), r.err().lines().toList());
    }

    @Test
    void aBadJobPropertyValueFailsOnceAsOneLineAndVerboseAddsTheTrace() {
        Run r = run("run", "-n", "2", "-o", "lockstep.mailbox.slots=-4", "org.lockstep.tools.ExchangeExample");
        assertEquals(LockstepCommand.FAILED, r.exitCode());
        assertEquals(List.of("lockstep run: [MPI_ERR_ARG] lockstep.mailbox.slots=-4 is out of range"), r.err().lines().toList());
        Run verbose = run("run", "--verbose", "-n", "2", "-o", "lockstep.mailbox.slots=-4", "org.lockstep.tools.ExchangeExample");
        assertTrue(verbose.err().lines().anyMatch(l -> l.startsWith("\tat ")), verbose.err());
    }

    @Test
    void moreRanksThanTheWorldSizeLimitAreRefusedBeforeForking() {
        Run r = run("run", "-n", "20000", "--jvm-option=-Xms1m", "org.lockstep.tools.ExchangeExample");
        assertEquals(LockstepCommand.FAILED, r.exitCode());
        assertTrue(r.err().contains("world size 20000 is outside [1, 16384]"), r.err());
    }

    @Test
    void moreRanksThanTheHostsMemoryHoldsAreRefusedBeforeForking() {
        Run r = run("run", "-n", "10000", "org.lockstep.tools.ExchangeExample");
        assertEquals(LockstepCommand.FAILED, r.exitCode());
        assertTrue(r.err().contains("-n 10000: 10000 JVMs of at least") && r.err().contains("MiB available"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void kitAndSimulatorOptionsOutOfRangeAreUsageErrors() {
        Run ranks = run("tck", "--provider", "mailbox", "--max-ranks", "0");
        assertEquals(LockstepCommand.USAGE, ranks.exitCode(), ranks.err());
        assertTrue(ranks.err().contains("--max-ranks must be at least 1, got 0"), ranks.err());
        Run path = run("tck", "--provider", "mailbox", "--provider-path", "/no/such/provider.jar");
        assertEquals(LockstepCommand.USAGE, path.exitCode(), path.err());
        assertTrue(path.err().contains("no such jar or directory: /no/such/provider.jar"), path.err());
        Run progress = run("embsp", "--progress", "-1", "sort");
        assertEquals(LockstepCommand.USAGE, progress.exitCode(), progress.err());
        assertTrue(progress.err().contains("--progress must not be negative"), progress.err());
    }

    @Test
    void unknownProviderIsAFailedRunWithTheMessageOnStderr() {
        Run r = run("example", "-n", "2", "--provider", "no-such-provider");
        assertEquals(LockstepCommand.FAILED, r.exitCode());
        assertTrue(r.err().contains("no-such-provider"), r.err());
    }
}
