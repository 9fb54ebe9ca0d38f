package org.lockstep.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A launched job whose ranks' and launcher's output are captured together (kept out of the test log) for the test to read. */
record CapturedLaunch(ProcessLauncher.Outcome outcome, String printed) {
    static CapturedLaunch run(ProcessLauncher.Job job) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ProcessLauncher.Outcome outcome;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            outcome = new ProcessLauncher(o, o).run(job);
        }
        return new CapturedLaunch(outcome, out.toString(StandardCharsets.UTF_8));
    }
}
