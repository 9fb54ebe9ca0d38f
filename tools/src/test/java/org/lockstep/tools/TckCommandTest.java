package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lockstep tck}: the kit's options pass through, its exit codes come back. */
class TckCommandTest {
    @Test
    void anUnknownProviderMeansNothingCouldRun() {
        CommandLineTest.Run r = CommandLineTest.run("tck", "--provider", "no-such-provider");
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("no provider named 'no-such-provider'"), r.out());
    }

    @Test
    void listShowsTheRules() {
        CommandLineTest.Run r = CommandLineTest.run("tck", "--list");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("PT2PT.01") && r.out().contains("LARGE.01") && r.out().contains("MBX.02"), r.out());
    }

    @Test
    void aSelectionOfRulesAgainstTheMailboxTransportPassesAndWritesTheReports(@TempDir Path reports) {
        CommandLineTest.Run r = CommandLineTest.run("tck", "--provider", "mailbox", "--rules", "PT2PT.01,LARGE.01,DEV.10",
                "--ranks", "2,3", "--tries", "3", "--seed", "5", "--report", reports.toString());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("COMPATIBLE"), r.out());
        assertTrue(Files.exists(reports.resolve("tck-report.md")) && Files.exists(reports.resolve("tck-report.html"))
                && Files.exists(reports.resolve("TEST-lockstep-tck.xml")), "reports written into " + reports);
    }
}
