package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.conformance.Capability;

class TckArgumentsTest {
    @Test
    void theOptionsOfTheIssueAreUnderstood() {
        TckArguments.Request r = TckArguments.parse("--provider", "mine", "--device", "/dev/shm/x", "--ranks", "2,3,4,8",
                "--seed", "42", "--tries", "7", "--report", "out", "--option", "a.b=c", "--threshold", "4k",
                "--capability", "send-cancel", "--rules", "PT2PT,LARGE.01");
        TckConfiguration c = r.configuration();
        assertEquals("mine", c.provider());
        assertEquals("/dev/shm/x", c.devicePath().orElseThrow());
        assertEquals(List.of(2, 3, 4, 8), c.rankCounts());
        assertEquals(42, c.seed().getAsLong());
        assertEquals(7, c.tries());
        assertEquals(Path.of("out"), c.reportDirectory().orElseThrow());
        assertEquals(Map.of("a.b", "c"), c.options());
        assertEquals(4096, c.threshold().getAsLong());
        assertEquals(Set.of(Capability.SEND_CANCEL), c.features());
        assertEquals(Set.of("PT2PT", "LARGE.01"), c.rules());
    }

    @Test
    void badCommandLinesAreRefusedWithTheirReason() {
        assertThrows(TckArguments.UsageException.class, () -> TckArguments.parse("--tries", "3"));
        assertTrue(assertThrows(TckArguments.UsageException.class, () -> TckArguments.parse("--provider", "x", "--ranks", "2,zero"))
                .getMessage().contains("zero"));
        assertTrue(assertThrows(TckArguments.UsageException.class, () -> TckArguments.parse("--provider", "x", "--capability", "wings"))
                .getMessage().contains("WINGS"));
    }

    @Test
    void exitCodesSayWhetherAnythingRan(@TempDir Path dir) {
        List<String> out = new ArrayList<>();
        assertEquals(2, TckArguments.runFromCommandLine(new String[] {"--provider", "nope"}, out::add, out::add));
        assertEquals(2, TckArguments.runFromCommandLine(new String[] {"--bogus"}, out::add, out::add));
        assertEquals(2, TckArguments.runFromCommandLine(new String[] {"--provider", "mailbox", "--rules", "NO.01"}, out::add, out::add));
        int code = TckArguments.runFromCommandLine(new String[] {"--provider", "mailbox", "--rules", "PT2PT.04,MBX.05,DEV.01",
                "--ranks", "2,3", "--seed", "1", "--report", dir.toString()}, out::add, out::add);
        assertEquals(0, code, String.join("\n", out));
        assertTrue(Files.exists(dir.resolve(org.lockstep.tck.report.ReportWriter.JUNIT)));
    }
}
