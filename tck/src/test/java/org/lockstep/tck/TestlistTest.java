package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.conformance.RunSettings;

class TestlistTest {
    @Test
    void linesGiveRanksTimeLimitsAndExpectedFailures(@TempDir Path dir) throws IOException {
        Testlist t = Testlist.read(Files.writeString(dir.resolve("t"), """
                # comment

                PT2PT.01 2,3,4
                PT2PT.04 2 time=90 xfail=wildcards are not supported, not even ANY_TAG
                """));
        assertEquals(List.of("PT2PT.01", "PT2PT.04"), t.rules().stream().map(Rule::id).toList());
        Testlist.Line line = t.lines().get("PT2PT.04");
        assertEquals(List.of(2), line.ranks());
        assertEquals(Optional.of(Duration.ofSeconds(90)), line.timeLimit());
        assertEquals(Optional.of("wildcards are not supported, not even ANY_TAG"), line.expectedFailure());
        RunSettings settings = t.settingsFor(rule("PT2PT.04"), RunSettings.defaults(1));
        assertEquals(List.of(2), settings.rankCounts());
        assertEquals(Duration.ofSeconds(90), settings.runDeadline());
    }

    @Test
    void anExpectedFailureDoesNotCountAsOneAndAnUnexpectedPassIsSaid(@TempDir Path dir) throws IOException {
        Testlist t = Testlist.read(Files.writeString(dir.resolve("t"), "PT2PT.04 2 xfail=no wildcards\nPT2PT.01 2\n"));
        RuleOutcome failed = new RuleOutcome(rule("PT2PT.04"), RuleOutcome.Verdict.FAILED, "got tag 3", "", OptionalLong.of(1),
                Duration.ZERO);
        RuleOutcome declared = t.declared(failed);
        assertEquals(RuleOutcome.Verdict.SKIPPED, declared.verdict());
        assertTrue(declared.message().contains("no wildcards") && declared.message().contains("got tag 3"), declared.message());
        RuleOutcome passed = new RuleOutcome(rule("PT2PT.04"), RuleOutcome.Verdict.PASSED, "", "", OptionalLong.of(1), Duration.ZERO);
        assertTrue(t.declared(passed).message().contains("expects it to fail"));
        RuleOutcome other = new RuleOutcome(rule("PT2PT.01"), RuleOutcome.Verdict.FAILED, "lost", "", OptionalLong.of(1), Duration.ZERO);
        assertEquals(other, t.declared(other), "a failure the table does not expect stays one");
    }

    @Test
    void badLinesAreRefusedWithTheirLineNumber(@TempDir Path dir) throws IOException {
        for (String[] bad : new String[][] {{"NOPE.01 2", "no rule NOPE.01"}, {"PT2PT.01", "a line is RULE RANKS"},
                {"PT2PT.01 two", "rank counts"}, {"PT2PT.01 2\nPT2PT.01 3", "listed twice"}, {"PT2PT.01 2 time=soon", "time="},
                {"PT2PT.01 2 xfail=", "needs the reason"}, {"PT2PT.01 2 slow", "unknown option"}}) {
            Path file = Files.writeString(dir.resolve("bad"), bad[0]);
            TckArguments.UsageException e = assertThrows(TckArguments.UsageException.class, () -> Testlist.read(file));
            assertTrue(e.getMessage().contains(bad[1]) && e.getMessage().contains(file + ":"), e.getMessage());
        }
    }

    private static Rule rule(String id) {
        return RuleCatalog.all().stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow();
    }
}
