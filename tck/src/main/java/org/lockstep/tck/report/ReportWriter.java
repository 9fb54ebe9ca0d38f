package org.lockstep.tck.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.lockstep.conformance.Origin;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.tck.TckReport;

/**
 * Writes a {@link TckReport} for people (Markdown and HTML: one row per rule, then the details of
 * every failure with its seed and shrunk scenario) and for CI (JUnit XML, one test case per rule).
 */
public final class ReportWriter {
    public static final String MARKDOWN = "tck-report.md";
    public static final String HTML = "tck-report.html";
    public static final String JUNIT = "TEST-lockstep-tck.xml";

    private ReportWriter() {
    }

    /** Writes all three reports into {@code directory} (created if needed); returns their paths. */
    public static List<Path> writeAll(TckReport report, Path directory) {
        try {
            Files.createDirectories(directory);
            Path md = directory.resolve(MARKDOWN);
            Path html = directory.resolve(HTML);
            Path xml = directory.resolve(JUNIT);
            Files.writeString(md, markdown(report), StandardCharsets.UTF_8);
            Files.writeString(html, html(report), StandardCharsets.UTF_8);
            Files.writeString(xml, junit(report), StandardCharsets.UTF_8);
            return List.of(md, html, xml);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the TCK report into " + directory + ": " + e.getMessage(), e);
        }
    }

    private static String verdictWord(RuleOutcome o) {
        return switch (o.verdict()) {
            case PASSED -> "pass";
            case FAILED -> "**FAIL**";
            case SKIPPED -> "skipped";
        };
    }

    private static String origins(RuleOutcome o) {
        return o.rule().origins().stream().map(Origin::toString).collect(Collectors.joining("; "));
    }

    public static String markdown(TckReport r) {
        StringBuilder b = new StringBuilder();
        b.append("# Lockstep TCK report: ").append(r.provider()).append("\n\n");
        b.append("- Verdict: **").append(r.verdict()).append("** (exit code ").append(r.verdict().exitCode()).append(")\n");
        b.append("- Provider: ").append(r.provider()).append(" — ").append(r.description()).append('\n');
        b.append("- Target: ").append(r.target()).append('\n');
        b.append("- Seeds: ").append(r.seeds()).append("; ").append(r.settings()).append('\n');
        b.append("- Started ").append(r.started()).append(", took ").append(r.elapsed().toMillis() / 1000.0).append(" s\n");
        b.append("- ").append(r.count(RuleOutcome.Verdict.PASSED)).append(" passed, ").append(r.count(RuleOutcome.Verdict.FAILED))
                .append(" failed, ").append(r.count(RuleOutcome.Verdict.SKIPPED)).append(" skipped of ").append(r.outcomes().size())
                .append(" rules\n");
        for (String note : r.notes()) {
            b.append("- Note: ").append(note).append('\n');
        }
        b.append("\n| rule | level | name | result | time | what it checks | adapted from |\n|---|---|---|---|---|---|---|\n");
        for (RuleOutcome o : r.outcomes()) {
            String result = verdictWord(o) + (o.verdict() == RuleOutcome.Verdict.SKIPPED ? ": " + o.message() : "");
            b.append("| ").append(o.rule().id()).append(" | ").append(o.rule().level().prefix()).append(" | ").append(o.rule().name())
                    .append(" | ").append(cell(result)).append(" | ").append(o.elapsed().toMillis()).append(" ms | ")
                    .append(cell(o.rule().summary())).append(" | ").append(cell(origins(o))).append(" |\n");
        }
        List<RuleOutcome> failed = r.outcomes().stream().filter(RuleOutcome::failed).toList();
        if (!failed.isEmpty()) {
            b.append("\n## Failures\n");
            for (RuleOutcome o : failed) {
                b.append("\n### ").append(o.rule().id()).append(' ').append(o.rule().name()).append("\n\n").append(o.message()).append('\n');
                o.seed().ifPresent(s -> b.append("\nReplay: `--seed ").append(s).append(" --rules ").append(o.rule().id()).append("`\n"));
                if (!o.details().isEmpty()) {
                    b.append("\n```\n").append(o.details().replace("```", "'''")).append("\n```\n");
                }
            }
        }
        return b.toString();
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    public static String html(TckReport r) {
        StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Lockstep TCK: ")
                .append(esc(r.provider())).append("</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}.FAILED{background:#fdd}.PASSED{background:#efe}"
                        + ".SKIPPED{background:#eee}pre{background:#f6f6f6;padding:1em;overflow:auto}</style></head><body>\n");
        b.append("<h1>Lockstep TCK report: ").append(esc(r.provider())).append("</h1>\n<p><b>").append(r.verdict())
                .append("</b> (exit code ").append(r.verdict().exitCode()).append(") — ").append(esc(r.description())).append("<br>")
                .append("Target: ").append(esc(r.target())).append("<br>Seeds: ").append(r.seeds()).append("; ").append(esc(r.settings()))
                .append("<br>Started ").append(r.started()).append(", took ").append(r.elapsed().toMillis() / 1000.0).append(" s</p>\n");
        for (String note : r.notes()) {
            b.append("<p>Note: ").append(esc(note)).append("</p>\n");
        }
        b.append("<table><tr><th>rule</th><th>level</th><th>name</th><th>result</th><th>ms</th><th>what it checks</th><th>adapted from</th></tr>\n");
        for (RuleOutcome o : r.outcomes()) {
            b.append("<tr class=\"").append(o.verdict()).append("\"><td><a href=\"#").append(o.rule().id()).append("\">")
                    .append(o.rule().id()).append("</a></td><td>").append(o.rule().level().prefix()).append("</td><td>")
                    .append(esc(o.rule().name())).append("</td><td>").append(o.verdict().name().toLowerCase(Locale.ROOT))
                    .append(o.verdict() == RuleOutcome.Verdict.PASSED ? "" : ": " + esc(o.message())).append("</td><td>")
                    .append(o.elapsed().toMillis()).append("</td><td>").append(esc(o.rule().summary())).append("</td><td>")
                    .append(esc(origins(o))).append("</td></tr>\n");
        }
        b.append("</table>\n");
        for (RuleOutcome o : r.outcomes()) {
            if (o.failed()) {
                b.append("<h2 id=\"").append(o.rule().id()).append("\">").append(o.rule().id()).append(' ').append(esc(o.rule().name()))
                        .append("</h2>\n<p>").append(esc(o.message())).append("</p>\n");
                o.seed().ifPresent(s -> b.append("<p>Replay with <code>--seed ").append(s).append("</code></p>\n"));
                if (!o.details().isEmpty()) {
                    b.append("<pre>").append(esc(o.details())).append("</pre>\n");
                }
            }
        }
        return b.append("</body></html>\n").toString();
    }

    public static String junit(TckReport r) {
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        double seconds = r.elapsed().toMillis() / 1000.0;
        b.append("<testsuite name=\"lockstep-tck.").append(attr(r.provider())).append("\" tests=\"").append(r.outcomes().size())
                .append("\" failures=\"").append(r.count(RuleOutcome.Verdict.FAILED)).append("\" errors=\"0\" skipped=\"")
                .append(r.count(RuleOutcome.Verdict.SKIPPED)).append("\" time=\"").append(seconds).append("\" timestamp=\"")
                .append(r.started()).append("\">\n  <properties>\n    <property name=\"verdict\" value=\"").append(r.verdict())
                .append("\"/>\n    <property name=\"seeds\" value=\"").append(r.seeds()).append("\"/>\n    <property name=\"target\" value=\"")
                .append(attr(r.target())).append("\"/>\n  </properties>\n");
        for (RuleOutcome o : r.outcomes()) {
            b.append("  <testcase classname=\"org.lockstep.tck.").append(o.rule().group()).append("\" name=\"").append(o.rule().methodName())
                    .append("\" time=\"").append(o.elapsed().toMillis() / 1000.0).append('"');
            switch (o.verdict()) {
                case PASSED -> b.append("/>\n");
                case SKIPPED -> b.append(">\n    <skipped message=\"").append(attr(o.message())).append("\"/>\n  </testcase>\n");
                case FAILED -> b.append(">\n    <failure message=\"").append(attr(o.message())).append("\" type=\"RuleViolation\">")
                        .append(esc(o.message() + (o.seed().isPresent() ? "\nseed " + o.seed().getAsLong() : "") + "\n" + o.details()))
                        .append("</failure>\n  </testcase>\n");
            }
        }
        return b.append("</testsuite>\n").toString();
    }

    private static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> {
                    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
                        b.append('?');
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    private static String attr(String s) {
        return esc(s).replace("\n", "&#10;");
    }
}
