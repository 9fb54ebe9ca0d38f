package org.lockstep.conformance.internal;

import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;
import static org.lockstep.conformance.Group.MBX;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Level.STOCHASTIC;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.seed;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.messaging;
import static org.lockstep.conformance.internal.Definitions.numbered;
import static org.lockstep.conformance.internal.Definitions.optional;
import static org.lockstep.conformance.internal.Definitions.sequenceOf;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleViolation;
import org.lockstep.conformance.device.DeviceInterposer;
import org.lockstep.conformance.device.OwnershipMonitor;
import org.lockstep.conformance.run.RunResult;
import org.lockstep.conformance.scenario.ScenarioChecks;
import org.lockstep.conformance.scenario.ScenarioExecution;
import org.lockstep.conformance.scenario.ScenarioShape;

/** The mailbox lock rules: the ownership hand-off of seed 001's slots, as seen from the device and from the API. */
final class MailboxRules {
    private static final Datatype BYTE = Datatype.BYTE;

    private MailboxRules() {
    }

    static List<Rule> rules() {
        return List.of(
                optional(MBX, 1, Capability.DEVICE_TRANSPORT, "noTwoOwners",
                        "While many senders flood one receiver through full mailboxes, no line of the device is written by a second party before its owner has published it.",
                        List.of(seed("lock_mailbox / unlock_mailbox (FIG. 3)"), mpich("pt2pt/sendflood.c")), MailboxRules::noTwoOwners),
                messaging(MBX, 2, REQUIRED, "nothingLostOrDuplicated",
                        "Under generated mixes of concurrent senders and receivers around the indirection threshold, every message is delivered exactly once.",
                        List.of(seed("place_message / copy_message"), mpich("pt2pt/many_isend.c")), MailboxRules::nothingLostOrDuplicated),
                messaging(MBX, 3, REQUIRED, "noDeadlockBeforeDeadline",
                        "Generated programs that MPI guarantees to complete (synchronous sends, waits, probes, cancels) complete before the deadline.",
                        List.of(standard("§3.4 communication modes (safe programs)"), seed("lock_mailbox waits for the receiver")),
                        MailboxRules::noDeadlockBeforeDeadline),
                messaging(MBX, 4, REQUIRED, "linearizable",
                        "Histories of generated scenarios are linearizable against sequential FIFO mailboxes per channel with MPI matching.",
                        List.of(seed("mailbox per (sender, receiver)"), standard("§3.5 message order")), MailboxRules::linearizable),
                messaging(MBX, 5, REQUIRED, "fullMailboxNeverBlocksIsend",
                        "isend returns at once even when the receiver's mailbox is full; the backlog is delivered in order once the receiver receives.",
                        List.of(seed("asynchronous mailbox"), mpich("pt2pt/many_isend.c")), MailboxRules::fullMailboxNeverBlocksIsend),
                messaging(MBX, 6, STOCHASTIC, "allToAllExchange",
                        "Every rank exchanging with every other at once, repeated: each payload arrives intact, exactly once.",
                        List.of(mpich("pt2pt/sendall.c"), seed("pair mailboxes at unique offsets")), MailboxRules::allToAllExchange));
    }

    private static void noTwoOwners(MessagingRuleContext c) {
        int perSender = 120;
        int t = c.threshold();
        int n = c.largestRanks(3, 8);
        try (DeviceInterposer.Session session = DeviceInterposer.open(OwnershipMonitor::new)) {
            MessagingTarget monitored = session.route(c.target());
            RunResult result = c.run(monitored, monitored.jobOptions(n), c.limits(), rank -> {
                Communicator w = rank.comm();
                if (w.rank() != 0) {
                    List<Request> pending = new ArrayList<>();
                    for (int i = 0; i < perSender; i++) {
                        int size = i % 5 == 4 ? t + 1 + 16 * w.rank() : 8 + w.rank();
                        pending.add(w.isend(PayloadPattern.of(w.rank() * 10_000L + i, size), size, BYTE, 0, 1));
                    }
                    Request.waitAll(pending.toArray(Request[]::new));
                    return;
                }
                MemorySegment b = MemorySegment.ofArray(new byte[t + 1 + 16 * w.size()]);
                int[] next = new int[w.size()];
                for (int k = 0; k < perSender * (w.size() - 1); k++) {
                    Status s = w.recv(b, b.byteSize(), BYTE, ANY_SOURCE, 1);
                    int i = next[s.source()]++;
                    check(PayloadPattern.matches(b, s.source() * 10_000L + i, s.byteCount()),
                            "message " + i + " of rank " + s.source() + " arrived mixed with another (two owners of one slot?)");
                }
            });
            check(!session.devices().isEmpty(), "the provider did not open its device through the interposer");
            List<ExternalMemoryViolations> found = new ArrayList<>();
            session.devices().forEach(d -> {
                if (d instanceof OwnershipMonitor m && m.violationCount() > 0) {
                    found.add(new ExternalMemoryViolations(m.violationCount(), m.violations()));
                }
            });
            // Two owners usually also break the run (a lost or mixed message): the monitor's finding names the cause.
            if (!found.isEmpty()) {
                throw new RuleViolation(found.getFirst().count() + " breach(es) of single ownership: device lines written while "
                        + "another party owned them, or claims taken twice", String.join("\n", found.getFirst().examples())
                        + (result.ok() ? "" : "\nthe run itself: " + result.hang().map(h -> h.reason())
                        .or(() -> result.rootFailure().map(Object::toString)).orElse("messages left unreceived")));
            }
            result.requireOk("flood through a monitored device");
        }
    }

    private record ExternalMemoryViolations(long count, List<String> examples) {
    }

    private static ScenarioShape concurrentShape(MessagingRuleContext c, int maxMessages) {
        return ScenarioShape.full(c.rankCounts(2, 8), maxMessages, ScenarioShape.sizesAround(c.threshold()));
    }

    private static void nothingLostOrDuplicated(MessagingRuleContext c) {
        Set<ScenarioChecks.Property> properties = EnumSet.of(ScenarioChecks.Property.COMPLETION, ScenarioChecks.Property.DELIVERY,
                ScenarioChecks.Property.EXACTLY_ONCE);
        c.search(concurrentShape(c, 24), s -> ScenarioChecks.check(ScenarioExecution.run(c.target().provider(),
                c.target().jobOptions(s.ranks()), c.limits(), s), properties));
    }

    private static void noDeadlockBeforeDeadline(MessagingRuleContext c) {
        ScenarioShape shape = concurrentShape(c, 20);
        c.search(shape, s -> ScenarioChecks.check(ScenarioExecution.run(c.target().provider(),
                c.target().jobOptions(s.ranks()), c.limits(), s), EnumSet.of(ScenarioChecks.Property.COMPLETION)));
    }

    private static void linearizable(MessagingRuleContext c) {
        ScenarioShape shape = ScenarioShape.full(c.rankCounts(2, 4), 10, ScenarioShape.sizesAround(c.threshold()));
        c.search(shape, s -> ScenarioChecks.check(ScenarioExecution.run(c.target().provider(),
                c.target().jobOptions(s.ranks()), c.limits(), s), EnumSet.of(ScenarioChecks.Property.COMPLETION,
                ScenarioChecks.Property.LINEARIZABLE)));
    }

    private static void fullMailboxNeverBlocksIsend(MessagingRuleContext c) {
        int backlog = 300;
        c.runClean(2, "backlog of isends", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                List<Request> pending = new ArrayList<>();
                for (int i = 0; i < backlog; i++) {
                    pending.add(w.isend(numbered(i, 16), 16, BYTE, 1, i % 3));
                }
                rank.signalWithoutProvider("all started");
                Request.waitAll(pending.toArray(Request[]::new));
                return;
            }
            // the receiver makes no call until every isend has returned: a full mailbox must not hold them up
            rank.awaitSignalWithoutProvider("all started");
            MemorySegment b = MemorySegment.ofArray(new byte[16]);
            for (int i = 0; i < backlog; i++) {
                Status s = w.recv(b, 16, BYTE, 0, ANY_TAG);
                checkEquals(i, sequenceOf(b), "message " + i + " of the backlog");
                checkEquals(i % 3, s.tag(), "tag of message " + i);
            }
        });
    }

    private static void allToAllExchange(MessagingRuleContext c) {
        int t = c.threshold();
        int n = c.largestRanks(2, 8);
        for (int repetition = 0; repetition < c.settings().repetitions(); repetition++) {
            int round = repetition;
            c.runClean(n, "all-to-all exchange", rank -> {
                Communicator w = rank.comm();
                int me = w.rank();
                List<Request> requests = new ArrayList<>();
                List<MemorySegment> in = new ArrayList<>();
                for (int peer = 0; peer < w.size(); peer++) {
                    int size = (me + peer + round) % 3 == 0 ? t + 1 + peer : 16 + peer;
                    MemorySegment b = MemorySegment.ofArray(new byte[2 * t + 64]);
                    in.add(b);
                    requests.add(w.irecv(b, b.byteSize(), BYTE, peer, round));
                    int outSize = (peer + me + round) % 3 == 0 ? t + 1 + me : 16 + me;
                    requests.add(w.isend(PayloadPattern.of(me * 1000L + peer, outSize), outSize, BYTE, peer, round));
                    check(size == outSize - me + peer, "sizes are symmetric");
                }
                Status[] statuses = Request.waitAll(requests.toArray(Request[]::new));
                Set<Integer> sources = new HashSet<>();
                for (int peer = 0; peer < w.size(); peer++) {
                    Status s = statuses[2 * peer];
                    sources.add(s.source());
                    check(PayloadPattern.matches(in.get(peer), peer * 1000L + me, s.byteCount()),
                            "rank " + me + " got a damaged payload from rank " + peer);
                }
                checkEquals(w.size(), sources.size(), "distinct sources heard from");
            });
        }
    }
}
