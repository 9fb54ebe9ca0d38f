package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.junit.jupiter.api.Test;

/** A rank's uncaught typed failure is copied as one line; everything else passes unchanged. */
class RankOutputTest {
    private static final List<String> TYPED_TRACE = List.of(
            "Exception in thread \"main\" org.lockstep.api.LockstepException: [MPI_ERR_ARG] lockstep.mailbox.slots=-4 is out of range",
            "\tat org.lockstep.pcie@0.1.0-SNAPSHOT/org.lockstep.pcie.mailbox.MailboxOptions.intOption(MailboxOptions.java:156)",
            "\tat org.lockstep.api@0.1.0-SNAPSHOT/org.lockstep.api.Lockstep.run(Lockstep.java:59)",
            "Caused by: java.lang.NumberFormatException: bad",
            "\tat java.base/java.lang.Long.parseLong(Long.java:1)",
            "\t... 4 more");

    private static List<String> copied(RankOutput filter, List<String> lines) {
        List<String> out = new ArrayList<>();
        lines.stream().map(filter::filter).filter(Objects::nonNull).forEach(out::add);
        return out;
    }

    @Test
    void anUncaughtTypedFailureBecomesOneLine() {
        List<String> in = new ArrayList<>(List.of("rank output before"));
        in.addAll(TYPED_TRACE);
        in.add("a line after");
        assertEquals(List.of("rank output before",
                "failed: LockstepException: [MPI_ERR_ARG] lockstep.mailbox.slots=-4 is out of range (--verbose shows the stack trace)",
                "a line after"), copied(new RankOutput(false), in));
    }

    @Test
    void verboseKeepsTheTrace() {
        assertEquals(TYPED_TRACE, copied(new RankOutput(true), TYPED_TRACE));
    }

    @Test
    void aBugsTraceIsKeptWhole() {
        List<String> bug = List.of("Exception in thread \"main\" java.lang.NullPointerException: oops", "\tat a.B.c(B.java:1)");
        assertEquals(bug, copied(new RankOutput(false), bug));
    }

    @Test
    void linesThatOnlyLookLikeFramesOutsideATraceAreKept() {
        RankOutput filter = new RankOutput(false);
        assertEquals("\tat the start of a table", filter.filter("\tat the start of a table"));
    }
}
