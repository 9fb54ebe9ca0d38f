package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.conformance.RuleOutcome;

/**
 * The kit under {@code mpirun} ({@code lockstep tck --launcher}) against the native-MPI providers,
 * with Open MPI and with MPICH: the whole catalogue, each rule at the rank counts of the provider's
 * testlist ({@code testlists/PROVIDER-MPI.testlist}), every rule world part of one job of rank
 * processes. A rule passes, is skipped because it needs a capability the provider does not
 * declare, or fails as its testlist line says it must (with the reason there); nothing else.
 */
@Timeout(900)
class LaunchedKitTest {
    private static final long SEED = 20261203L;
    /** Pretend hosts for hybrid: Open MPI between them over TCP only, so that their traffic crosses the network stack. */
    private static final List<String> OPEN_MPI_TCP = List.of("--mca", "btl", "self,tcp");
    private static final Map<String, String> TWO_PRETEND_HOSTS = Map.of("lockstep.mpi.hostOf", "2");

    @Test
    void mpiOnOpenMpi() {
        passesItsTestlist("mpi", "openmpi", List.of(), Map.of());
    }

    @Test
    void mpiOnMpich() {
        passesItsTestlist("mpi", "mpich", List.of(), Map.of());
    }

    @Test
    void hybridOnOpenMpiAcrossTwoPretendHosts() {
        passesItsTestlist("hybrid", "openmpi", OPEN_MPI_TCP, TWO_PRETEND_HOSTS);
    }

    @Test
    void hybridOnMpichAcrossTwoPretendHosts() {
        passesItsTestlist("hybrid", "mpich", List.of(), TWO_PRETEND_HOSTS);
    }

    @Test
    void theTestlistsHoldTheWholeCatalogueWithAReasonForEachExpectedFailure() throws IOException {
        List<String> messagingRules = org.lockstep.conformance.RuleCatalog.all().stream()
                .filter(r -> r.group().subject() != org.lockstep.conformance.Group.Subject.DEVICE).map(r -> r.id()).toList();
        try (Stream<Path> files = Files.list(Path.of("testlists"))) {
            List<Path> testlists = files.filter(f -> f.toString().endsWith(".testlist")).toList();
            assertEquals(4, testlists.size(), "mpi and hybrid on Open MPI and MPICH: " + testlists);
            for (Path f : testlists) {
                Testlist t = Testlist.read(f);
                assertEquals(messagingRules, t.rules().stream().map(r -> r.id()).toList(), f + " lists every messaging rule");
                assertTrue(t.lines().values().stream().allMatch(l -> l.expectedFailure().map(x -> x.length() > 40).orElse(true)),
                        f + ": an expected failure says why");
            }
        }
    }

    @Test
    void aLauncherThatIsNotInstalledRunsNothingAndSaysSo() {
        TckReport report = Tck.run(TckConfiguration.of("mpi").withRules(Set.of("PT2PT.01"))
                .withLauncher(new KitLauncher("mpirun.nonexistent", List.of())), line -> { });
        assertEquals(Verdict.NOTHING_RAN, report.verdict());
        assertTrue(report.notes().stream().anyMatch(n -> n.contains("cannot run the launcher 'mpirun.nonexistent'")), report::summary);
    }

    private static void passesItsTestlist(String provider, String mpi, List<String> flags, Map<String, String> options) {
        String launcher = "mpirun." + mpi;
        requireInstalled(launcher);
        Testlist testlist = Testlist.read(Path.of("testlists", provider + "-" + mpi + ".testlist"));
        List<String> progress = new ArrayList<>();
        TckReport report = Tck.run(TckConfiguration.of(provider).withTestlist(testlist).withTries(5).withSeed(SEED).withOptions(options)
                .withLauncher(new KitLauncher(launcher, flags)), progress::add);
        String shown = String.join("\n", progress) + "\n" + report.outcomes().stream().filter(RuleOutcome::failed)
                .map(o -> o.rule().id() + ": " + o.message() + "\n" + o.details()).reduce("", String::concat);
        assertEquals(Verdict.COMPATIBLE, report.verdict(), shown);
        assertEquals(testlist.rules().size(), report.outcomes().size(), "every listed rule has an outcome\n" + shown);
        for (RuleOutcome o : report.outcomes()) {
            boolean declaredSkip = o.verdict() == RuleOutcome.Verdict.SKIPPED
                    && (o.message().startsWith("needs capability") || o.message().startsWith("expected failure (testlist"));
            boolean cleanPass = o.passed() && !o.message().startsWith("passed, although the testlist expects it to fail");
            assertTrue(cleanPass || declaredSkip, o.rule().id() + " " + o.verdict() + ": " + o.message() + "\n" + shown);
        }
    }

    /** CI installs both MPIs (.ci/run), so there a missing launcher fails; elsewhere the test is skipped with the reason. */
    private static void requireInstalled(String launcher) {
        boolean found;
        try (Stream<Path> dirs = Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin").split(":")).map(Path::of)) {
            found = dirs.anyMatch(d -> Files.isExecutable(d.resolve(launcher)));
        }
        String why = launcher + " is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev mpich)";
        if ("true".equals(System.getenv("CI"))) {
            assertTrue(found, why + "; CI must install it");
        }
        Assumptions.assumeTrue(found, why);
    }
}
