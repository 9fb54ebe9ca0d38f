package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit as a third party meets it: a provider written, compiled and packed outside this build
 * (its own module, its own jar, found only through {@code --provider-path}), and the kit over a
 * device that is a plain file ({@code --device}).
 */
@Timeout(600)
class ThirdPartyProviderTest {
    /** A vendor's provider: the mailbox transport with the vendor's own settings, under its own name. */
    private static final String PROVIDER_SOURCE = """
            package com.example.acme;

            import org.lockstep.api.JobOptions;
            import org.lockstep.api.LaunchEnvironment;
            import org.lockstep.api.Lockstep;
            import org.lockstep.api.LockstepException;
            import org.lockstep.api.ErrorClass;
            import org.lockstep.api.LockstepProvider;
            import org.lockstep.api.RankProgram;

            public final class AcmeProvider implements LockstepProvider {
                @Override
                public String name() {
                    return "acme";
                }

                @Override
                public String description() {
                    return "Acme's tuned mailbox transport: 32 slots a mailbox, 1 KiB in place";
                }

                @Override
                public void runInThreads(JobOptions options, RankProgram program) {
                    transport().runInThreads(tuned(options), program);
                }

                @Override
                public void runAttached(JobOptions options, LaunchEnvironment launch, RankProgram program) {
                    transport().runAttached(tuned(options), launch, program);
                }

                private static JobOptions tuned(JobOptions options) {
                    return options.with("lockstep.mailbox.slots", "32").with("lockstep.mailbox.inlineThreshold", "1024");
                }

                private static LockstepProvider transport() {
                    return Lockstep.find("mailbox").orElseThrow(() -> new LockstepException(ErrorClass.NO_PROVIDER,
                            "acme runs on the mailbox transport, which is not installed"));
                }
            }
            """;
    private static final String MODULE_SOURCE = """
            module com.example.acme {
                requires org.lockstep.api;
                provides org.lockstep.api.LockstepProvider with com.example.acme.AcmeProvider;
            }
            """;

    @Test
    void aProviderBuiltOutsideTheBuildIsFoundOnItsPathAndPasses(@TempDir Path dir) throws IOException {
        Path jar = buildProviderJar(dir);
        Path report = dir.resolve("report");
        List<String> out = new ArrayList<>();
        int exit = TckArguments.runFromCommandLine(new String[] {"--provider-path", jar.toString(), "--provider", "acme",
                "--rules", "PT2PT.01,PT2PT.04,PT2PT.07,LARGE.01,COLL.01", "--ranks", "2,3", "--seed", "21", "--tries", "20",
                "--threshold", "1024", "--report", report.toString()}, out::add, out::add);
        String said = String.join("\n", out);
        assertEquals(Verdict.COMPATIBLE.exitCode(), exit, said);
        String markdown = Files.readString(report.resolve(org.lockstep.tck.report.ReportWriter.MARKDOWN));
        assertTrue(markdown.contains("acme"), markdown);
        assertTrue(markdown.contains("PT2PT.01") && markdown.contains("COLL.01"), markdown);
    }

    @Test
    void theProvidersTestlistChoosesRanksAndTimeLimitsAndDeclaresExpectedFailures(@TempDir Path dir) throws IOException {
        Path jar = buildProviderJar(dir);
        Path table = Files.writeString(dir.resolve("acme.testlist"), """
                # Acme's table, MPICH testlist style: rule, rank counts, options
                PT2PT.01   2,3
                PT2PT.04   2      time=60
                COLL.01    3      xfail=collectives are not tuned yet
                """);
        Path report = dir.resolve("report");
        List<String> out = new ArrayList<>();
        int exit = TckArguments.runFromCommandLine(new String[] {"--provider-path", jar.toString(), "--provider", "acme",
                "--testlist", table.toString(), "--seed", "3", "--tries", "10", "--report", report.toString()}, out::add, out::add);
        String said = String.join("\n", out);
        assertEquals(Verdict.COMPATIBLE.exitCode(), exit, said);
        String markdown = Files.readString(report.resolve(org.lockstep.tck.report.ReportWriter.MARKDOWN));
        assertTrue(markdown.contains("COLL.01") && markdown.contains("although the testlist expects it to fail"), markdown);
        assertTrue(markdown.contains("testlist: 3 rules"), markdown);
        assertTrue(!markdown.contains("PT2PT.02"), "only the listed rules run: " + markdown);
    }

    @Test
    void theKitChecksTheTransportOverADeviceThatIsAFile(@TempDir Path dir) {
        Path device = dir.resolve("device.img");
        List<String> out = new ArrayList<>();
        int exit = TckArguments.runFromCommandLine(new String[] {"--provider", "mailbox", "--device", device.toString(),
                "--rules", "PT2PT.01,DEV.01,DEV.02,MBX.01", "--ranks", "2", "--seed", "5", "--tries", "10"}, out::add, out::add);
        assertEquals(Verdict.COMPATIBLE.exitCode(), exit, String.join("\n", out));
    }

    /** Compiles the provider against the API module alone and packs it with its service file, with the JDK's own tools. */
    private static Path buildProviderJar(Path dir) throws IOException {
        Path sources = dir.resolve("src");
        Path classes = dir.resolve("classes");
        Files.createDirectories(sources.resolve("com/example/acme"));
        Files.createDirectories(classes.resolve("META-INF/services"));
        Path provider = Files.writeString(sources.resolve("com/example/acme/AcmeProvider.java"), PROVIDER_SOURCE);
        Path module = Files.writeString(sources.resolve("module-info.java"), MODULE_SOURCE);
        Files.writeString(classes.resolve("META-INF/services/org.lockstep.api.LockstepProvider"), "com.example.acme.AcmeProvider\n");
        String modulePath = System.getProperty("jdk.module.path", System.getProperty("java.class.path"));
        run("javac", "--module-path", modulePath, "-d", classes.toString(), provider.toString(), module.toString());
        Path jar = dir.resolve("acme-provider.jar");
        run("jar", "--create", "--file", jar.toString(), "-C", classes.toString(), ".");
        return jar;
    }

    private static void run(String tool, String... arguments) {
        StringWriter said = new StringWriter();
        PrintWriter to = new PrintWriter(said, true);
        int exit = ToolProvider.findFirst(tool).orElseThrow(() -> new AssertionError("no " + tool + " in this JDK"))
                .run(to, to, arguments);
        assertEquals(0, exit, tool + " " + String.join(" ", arguments) + ":\n" + said);
    }
}
