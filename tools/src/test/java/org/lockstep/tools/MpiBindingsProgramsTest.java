package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;

/**
 * Programs written for the Open MPI Java bindings ({@code org.lockstep.mpiprograms}, one per
 * family of calls, each failing its rank on a wrong result) run unchanged by the launcher of
 * {@code lockstep run}: as processes over a device in {@code /dev/shm}, and with
 * {@code --threads} as threads of one JVM, each rank in a class loader of its own; 2 and 4 ranks;
 * and on EM-BSP's simulation (4 virtual processors as threads).
 */
@Timeout(300)
class MpiBindingsProgramsTest {
    private static final String PACKAGE = "org.lockstep.mpiprograms.";
    private static final Path PROGRAMS = Path.of("target", "test-classes").toAbsolutePath();

    record Launch(ProcessLauncher.Outcome outcome, String out, String err) {
    }

    static Launch processes(int ranks, String program) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ProcessLauncher.Job job = new ProcessLauncher.Job(ranks, PACKAGE + program, List.of(), Optional.empty(), Map.of(),
                List.of("-Xms64m", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"), List.of(PROGRAMS.toString()),
                false, Duration.ofSeconds(5), false);
        ProcessLauncher.Outcome outcome;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            outcome = new ProcessLauncher(o, e).run(job);
        }
        return new Launch(outcome, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0} on {1} processes")
    @CsvSource({"PointToPoint, 2", "PointToPoint, 4", "Requests, 2", "Requests, 4", "Collectives, 2", "Collectives, 4",
            "Ops, 2", "Ops, 4", "Communicators, 2", "Communicators, 4", "Environment, 2", "Environment, 4",
            "Datatypes, 2", "Datatypes, 4", "MatchedProbe, 2", "MatchedProbe, 4", "NonBlockingCollectives, 2", "NonBlockingCollectives, 4",
            "Intercomms, 2", "Intercomms, 4", "Topologies, 2", "Topologies, 4", "Windows, 2", "Windows, 4",
            "Ports, 2", "Ports, 3", "Files, 2", "Files, 4", "NameService, 2", "NameService, 3", "GeneralGraphs, 2", "GeneralGraphs, 4"})
    void runsUnchangedAsProcesses(String program, int ranks) {
        Launch l = processes(ranks, program);
        assertEquals(0, l.outcome().exitCode(), l.err() + l.out());
        assertTrue(l.out().contains("[0] ") && l.out().contains(" passed on " + ranks + " ranks"), l.out());
    }

    @ParameterizedTest(name = "{0} on {1} threads")
    @CsvSource({"PointToPoint, 2", "PointToPoint, 4", "Requests, 2", "Requests, 4", "Collectives, 2", "Collectives, 4",
            "Ops, 2", "Ops, 4", "Communicators, 2", "Communicators, 4", "Environment, 2", "Environment, 4",
            "Datatypes, 2", "Datatypes, 4", "MatchedProbe, 2", "MatchedProbe, 4", "NonBlockingCollectives, 2", "NonBlockingCollectives, 4",
            "Intercomms, 2", "Intercomms, 4", "Topologies, 2", "Topologies, 4", "Windows, 2", "Windows, 4",
            "Ports, 2", "Ports, 3", "Files, 2", "Files, 4", "NameService, 2", "NameService, 3", "GeneralGraphs, 2", "GeneralGraphs, 4"})
    void runsUnchangedAsThreadsEachInItsOwnClassLoader(String program, int ranks) {
        String printed = printedByRanks(() -> new ThreadRanks(List.of(PROGRAMS), PACKAGE + program, List.of())
                .run(JobOptions.ofRanks(ranks).with(JobSettings.DEVICE_PROPERTY, JobSettings.DEFAULT_DEVICE)));
        assertTrue(printed.contains(" passed on " + ranks + " ranks"), printed);
    }

    @ParameterizedTest(name = "{0} on 4 EM-BSP virtual processors")
    @ValueSource(strings = {"PointToPoint", "Requests", "Collectives", "Ops", "Communicators", "Environment", "Datatypes",
        "MatchedProbe", "NonBlockingCollectives", "Intercomms", "Topologies", "Windows", "Ports", "Files", "NameService", "GeneralGraphs"})
    void runsUnchangedOnEmBsp(String program) {
        String printed = printedByRanks(() -> new ThreadRanks(List.of(PROGRAMS), PACKAGE + program, List.of()).run(JobOptions.ofRanks(4)
                .with(JobSettings.DEVICE_PROPERTY, JobSettings.DEFAULT_DEVICE).with(Lockstep.PROVIDER_PROPERTY, EmbspCommand.PROVIDER)));
        assertTrue(printed.contains(" passed on 4 ranks"), printed);
    }

    /** A program's arguments reach its main and {@code MPI.INFO_ENV}'s {@code argv} (Environment checks both). */
    @Test
    void theProgramsArgumentsAreInfoEnvsArgvOnThreads() {
        String printed = printedByRanks(() -> new ThreadRanks(List.of(PROGRAMS), PACKAGE + "Environment", List.of("-n", "two words"))
                .run(JobOptions.ofRanks(2).with(JobSettings.DEVICE_PROPERTY, JobSettings.DEFAULT_DEVICE)));
        assertTrue(printed.contains(" passed on 2 ranks"), printed);
    }

    /**
     * What the ranks of a thread job print: they share this JVM's standard output, so the test holds
     * it for the job (and asserts on it) instead of letting each pass reach the build log. A job that
     * fails hands what it printed back to the real standard output, beside its failure.
     */
    static String printedByRanks(Runnable job) {
        PrintStream standardOut = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        boolean finished = false;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            job.run();
            finished = true;
        } finally {
            System.setOut(standardOut);
            if (!finished) {
                standardOut.print(printed.toString(StandardCharsets.UTF_8));
            }
        }
        return printed.toString(StandardCharsets.UTF_8);
    }

    /**
     * Rank 0's abort fails rank 1's barrier, which aborts under the same handler: which of the two
     * processes exits first is a race, so the launcher may name either; rank 1's own abort names rank
     * 0 as failed (not as finished, which a failed process once published).
     */
    @Test
    void aFailedCallUnderErrorsAreFatalAbortsTheJobWithItsErrorClassOnOneLine() {
        Launch l = processes(2, "FatalError");
        assertTrue(l.outcome().firstFailedRank() >= 0, l.err() + l.out());
        assertEquals(6, l.outcome().exitCodes()[0], "exit status = MPI.ERR_RANK; " + l.err());
        List<String> aborts = l.err().lines().filter(line -> line.contains("MPI abort: rank 0: Comm.send")).toList();
        assertEquals(1, aborts.size(), l.err());
        assertTrue(aborts.getFirst().contains("MPI_ERR_RANK") && aborts.getFirst().contains("ERRORS_ARE_FATAL"), aborts.getFirst());
        l.err().lines().filter(line -> line.contains("MPI abort: rank 1:")).forEach(second ->
                assertTrue(second.contains("MPI_ERR_PROC_FAILED") && second.contains("rank 0 has failed"), second));
    }

    @Test
    void lockstepRunThreadsRunsAMainClassAndLockstepClasspathNamesTheBindings() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int[] code = new int[1];
        String printed = printedByRanks(() -> code[0] = LockstepCommand.execute(new PrintWriter(out), new PrintWriter(err),
                "run", "--threads", "-n", "3", "-cp", PROGRAMS.toString(), PACKAGE + "Collectives"));
        assertEquals(0, code[0], err.toString());
        assertTrue(printed.contains("collectives passed on 3 ranks"), printed);
        StringWriter path = new StringWriter();
        assertEquals(0, LockstepCommand.execute(new PrintWriter(path), new PrintWriter(err), "classpath", "--compile"));
        assertTrue(Path.of(path.toString().trim()).equals(ThreadRanks.mpiBindings()), path.toString());
    }

    /** As {@code java Main} does, the launcher runs the public main of a class that is not public (the suite's FileAtomicity). */
    @Test
    void lockstepRunThreadsRunsTheMainOfAPackagePrivateClass() {
        String printed = printedByRanks(() -> new ThreadRanks(List.of(PROGRAMS), PACKAGE + "PackagePrivateMain", List.of())
                .run(JobOptions.ofRanks(2).with(JobSettings.DEVICE_PROPERTY, JobSettings.DEFAULT_DEVICE)));
        assertTrue(printed.contains("package-private main passed on 2 ranks"), printed);
    }

    @Test
    void aMissingMainClassIsATypedErrorOnOneLine() {
        StringWriter err = new StringWriter();
        int code = LockstepCommand.execute(new PrintWriter(new StringWriter()), new PrintWriter(err),
                "run", "--threads", "-n", "2", "-cp", PROGRAMS.toString(), PACKAGE + "NoSuchProgram");
        assertEquals(LockstepCommand.FAILED, code);
        assertTrue(err.toString().contains("no class " + PACKAGE + "NoSuchProgram"), err.toString());
    }
}
