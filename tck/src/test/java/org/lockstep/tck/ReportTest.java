package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.tck.report.ReportWriter;

/** Verdicts and the three report formats. */
class ReportTest {
    private static RuleOutcome outcome(String id, RuleOutcome.Verdict v, String message) {
        return new RuleOutcome(RuleCatalog.rule(id), v, message, v == RuleOutcome.Verdict.FAILED ? "shrunk scenario:\n2 ranks <&>" : "",
                v == RuleOutcome.Verdict.FAILED ? OptionalLong.of(99) : OptionalLong.empty(), Duration.ofMillis(12));
    }

    private static TckReport report(RuleOutcome... outcomes) {
        return new TckReport("mine", "a provider", "mine over emulated", List.of(99L), "tries 5", Instant.EPOCH, Duration.ofSeconds(3),
                List.of(outcomes), List.of());
    }

    @Test
    void theVerdictIsDecidedByRequiredAndDeclaredOptionalRules() {
        assertEquals(Verdict.COMPATIBLE, report(outcome("PT2PT.01", RuleOutcome.Verdict.PASSED, ""),
                outcome("PT2PT.32", RuleOutcome.Verdict.FAILED, "a race")).verdict(), "a stochastic failure is reported, not binding");
        assertEquals(Verdict.INCOMPATIBLE, report(outcome("PT2PT.01", RuleOutcome.Verdict.FAILED, "overtaken")).verdict());
        assertEquals(Verdict.INCOMPATIBLE, report(outcome("PT2PT.31", RuleOutcome.Verdict.FAILED, "declared but broken")).verdict());
        assertEquals(Verdict.NOTHING_RAN, report(outcome("PT2PT.31", RuleOutcome.Verdict.SKIPPED, "not declared")).verdict());
        assertEquals(1, Verdict.INCOMPATIBLE.exitCode());
    }

    @Test
    void reportsHaveOneRowPerRuleAndTheFailuresWithTheirSeed() {
        TckReport r = report(outcome("PT2PT.01", RuleOutcome.Verdict.FAILED, "message 3 overtook message 2"),
                outcome("PT2PT.31", RuleOutcome.Verdict.SKIPPED, "needs SEND_CANCEL"),
                outcome("LARGE.01", RuleOutcome.Verdict.PASSED, ""));
        String md = ReportWriter.markdown(r);
        assertTrue(md.contains("| PT2PT.01 | required | nonOvertaking | **FAIL** |"), md);
        assertTrue(md.contains("skipped: needs SEND_CANCEL"), md);
        assertTrue(md.contains("`--seed 99 --rules PT2PT.01`") && md.contains("shrunk scenario"), md);
        String html = ReportWriter.html(r);
        assertTrue(html.contains("2 ranks &lt;&amp;&gt;"), "details are escaped in HTML");
        String xml = ReportWriter.junit(r);
        assertTrue(xml.contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""), xml);
        assertTrue(xml.contains("<testcase classname=\"org.lockstep.tck.PT2PT\" name=\"required_PT2PT_01_nonOvertaking\""), xml);
        assertTrue(xml.contains("<skipped message=\"needs SEND_CANCEL\"/>"), xml);
        assertTrue(!xml.contains("<&>"), "nothing unescaped in XML");
    }
}
