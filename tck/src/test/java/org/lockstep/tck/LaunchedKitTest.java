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
 * with Open MPI and with MPICH: each rule world is part of one job of four rank processes. CI runs
 * a representative subset of the catalogue ({@link #CI_RULES}: point-to-point, wildcards, probes,
 * synchronous and self sends, cancels, a generated program search, large messages, communicators,
 * collectives (non-blocking ones in order), datatypes, topologies, truncation of a posted receive,
 * passive-target windows) — the whole catalogue takes about ten minutes per provider and MPI here,
 * and is run by hand (docs/conformance-under-mpi.md, with the testlists of tck/testlists).
 */
@Timeout(900)
class LaunchedKitTest {
    static final Set<String> CI_RULES = Set.of("PT2PT.01", "PT2PT.04", "PT2PT.06", "PT2PT.07", "PT2PT.10", "PT2PT.15", "PT2PT.16",
            "PT2PT.17", "PT2PT.18", "PT2PT.21", "PT2PT.25", "PT2PT.33", "MBX.05", "LARGE.01", "LARGE.07", "COMM.01", "COMM.03",
            "COLL.01", "COLL.03", "COLL.04", "COLL.05", "COLL.12", "TYPE.01", "TOPO.06", "PT2PT.13", "RMA.03", "RMA.04");
    private static final long SEED = 20261203L;
    /** Pretend hosts for hybrid: Open MPI between them over TCP only, so that their traffic crosses the network stack. */
    private static final List<String> OPEN_MPI_TCP = List.of("--mca", "btl", "self,tcp");
    private static final Map<String, String> TWO_PRETEND_HOSTS = Map.of("lockstep.mpi.hostOf", "2");

    @Test
    void mpiOnOpenMpi() {
        passes("mpi", "mpirun.openmpi", List.of(), Map.of());
    }

    @Test
    void mpiOnMpich() {
        passes("mpi", "mpirun.mpich", List.of(), Map.of());
    }

    @Test
    void hybridOnOpenMpiAcrossTwoPretendHosts() {
        passes("hybrid", "mpirun.openmpi", OPEN_MPI_TCP, TWO_PRETEND_HOSTS);
    }

    @Test
    void hybridOnMpichAcrossTwoPretendHosts() {
        passes("hybrid", "mpirun.mpich", List.of(), TWO_PRETEND_HOSTS);
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

    private static void passes(String provider, String launcher, List<String> flags, Map<String, String> options) {
        requireInstalled(launcher);
        List<String> progress = new ArrayList<>();
        TckReport report = Tck.run(TckConfiguration.of(provider).withRules(CI_RULES).withRankCounts(List.of(2, 3, 4)).withTries(5)
                .withSeed(SEED).withOptions(options).withLauncher(new KitLauncher(launcher, flags)), progress::add);
        String shown = String.join("\n", progress) + "\n" + report.outcomes().stream().filter(RuleOutcome::failed)
                .map(o -> o.rule().id() + ": " + o.message() + "\n" + o.details()).reduce("", String::concat);
        assertEquals(Verdict.COMPATIBLE, report.verdict(), shown);
        assertEquals(CI_RULES.size(), report.count(RuleOutcome.Verdict.PASSED), shown);
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
