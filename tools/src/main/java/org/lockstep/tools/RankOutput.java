package org.lockstep.tools;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What of one rank's output stream the launcher copies. Everything, except that the JVM's report of
 * an uncaught typed failure ({@code Exception in thread "main" ...LockstepException: [MPI_ERR_ARG] ...}
 * and its stack trace) becomes one line with the failure's class and message; with
 * {@code --verbose} the trace is kept. Other output, including traces of failures that are not
 * Lockstep's typed errors (bugs), passes unchanged, but for the one line the JVM prints at the end
 * of an AOT record the launcher asked for ({@link RankStartCache#recordNotice}).
 */
final class RankOutput {
    /** A typed failure's first line: the JVM's uncaught report, or a printed trace's first line. */
    private static final Pattern TYPED_FAILURE = Pattern.compile(
            "^(?:Exception in thread \"[^\"]*\" )?(?:[\\w$]+\\.)*([\\w$]+): (\\[MPI_ERR_\\w+\\].*)$");
    /** The lines of a stack trace after its first. */
    private static final Pattern TRACE_LINE = Pattern.compile("^(?:\\s+at |\\s+\\.\\.\\. \\d+ (?:more|common frames omitted)"
            + "|Caused by: |\\s+Suppressed: |\\s+Caused by: )");

    private final boolean verbose;
    private final String launcherNotice;
    private boolean inTypedTrace;

    RankOutput(boolean verbose) {
        this(verbose, null);
    }

    /** Drops the line {@code launcherNotice} (null: none) wherever it comes. */
    RankOutput(boolean verbose, String launcherNotice) {
        this.verbose = verbose;
        this.launcherNotice = launcherNotice;
    }

    /** The line to copy for {@code line}, or null to drop it. */
    String filter(String line) {
        if (launcherNotice != null && line.strip().equals(launcherNotice)) {
            return null;
        }
        if (verbose) {
            return line;
        }
        if (inTypedTrace && TRACE_LINE.matcher(line).find()) {
            return null;
        }
        inTypedTrace = false;
        Matcher failure = TYPED_FAILURE.matcher(line);
        if (failure.matches()) {
            inTypedTrace = true;
            return "failed: " + failure.group(1) + ": " + failure.group(2) + " (--verbose shows the stack trace)";
        }
        return line;
    }
}
