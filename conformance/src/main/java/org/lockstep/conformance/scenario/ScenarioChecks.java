package org.lockstep.conformance.scenario;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.lockstep.api.Status;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.oracle.ChannelOrderChecker;
import org.lockstep.conformance.oracle.ExactlyOnceChecker;
import org.lockstep.conformance.oracle.LinearizabilityChecker;
import org.lockstep.conformance.oracle.MailboxModel;
import org.lockstep.conformance.run.HangReport;

/**
 * Checks a {@link ScenarioRecord} against MPI: every receive got a message that was sent, that
 * matches what it asked for, with a status that names it and a buffer that holds exactly its bytes;
 * deterministic ranks got what the {@link ReferenceRun} says; every message arrived exactly once;
 * channels kept their order; probes named the message that was then received; synchronous sends
 * did not complete before their receive started; unmatched receives cancelled.
 */
public final class ScenarioChecks {
    private static final int SHOWN_BYTES = 16;

    private ScenarioChecks() {
    }

    /** Which properties to check. */
    public enum Property {
        /** The run completed: no deadlock, no rank failed, nothing left unreceived. */
        COMPLETION,
        /** Receives got sent messages, intact, with truthful statuses; probes and cancels behaved. */
        DELIVERY,
        /** Deterministic ranks got exactly the reference engine's messages. */
        REFERENCE_MATCHING,
        /** Nothing lost, nothing duplicated. */
        EXACTLY_ONCE,
        /** Per-channel order. */
        CHANNEL_ORDER,
        /** Synchronous sends completed only after their receive started. */
        SYNCHRONOUS,
        /** The history is linearizable against {@link MailboxModel}. */
        LINEARIZABLE
    }

    /** The problems with {@code record} in terms of {@code properties}; empty if it conforms. */
    public static List<String> check(ScenarioRecord record, Set<Property> properties) {
        List<String> problems = new ArrayList<>();
        if (!record.run().ok()) {
            // Whatever else went wrong, a run that did not complete says so first.
            Optional<HangReport> hang = record.run().hang();
            if (hang.isPresent()) {
                problems.add(hang.get().reason() + "\n" + hang.get());
            }
            record.run().failures().stream().limit(3).forEach(f -> problems.add(f.toString()));
            record.run().leftovers().forEach(l -> problems.add(l.toString() + " that no receive took (a duplicate?)"));
            if (properties.contains(Property.COMPLETION) || hang.isPresent() || !record.run().failures().isEmpty()) {
                return problems;
            }
        }
        Scenario scenario = record.scenario();
        List<ScenarioRecord.ReceiveRecord> receives = new ArrayList<>(record.receives());
        receives.sort(Comparator.comparingInt(ScenarioRecord.ReceiveRecord::rank).thenComparingInt(r -> r.step().index()));
        Map<ScenarioRecord.ReceiveRecord, Message> identified = new HashMap<>();
        Set<Integer> taken = new HashSet<>();
        List<String> unexplained = new ArrayList<>();
        for (ScenarioRecord.ReceiveRecord r : receives) {
            Optional<Message> m = identify(scenario, r, taken);
            if (m.isPresent()) {
                identified.put(r, m.get());
                taken.add(m.get().id());
            } else {
                unexplained.add(explain(scenario, r));
            }
        }
        if (properties.contains(Property.DELIVERY)) {
            problems.addAll(unexplained);
            for (ScenarioRecord.ReceiveRecord r : receives) {
                Message m = identified.get(r);
                if (m != null) {
                    problems.addAll(delivery(r, m));
                }
            }
            for (ScenarioRecord.CancelRecord c : record.cancels()) {
                if (c.status() == null) {
                    problems.add("rank " + c.rank() + ": cancelling an unmatched receive " + c.spec() + " failed: " + c.error());
                } else if (!c.status().cancelled()) {
                    problems.add("rank " + c.rank() + ": an unmatched receive " + c.spec() + " was cancelled but its status says "
                            + c.status());
                }
            }
        }
        if (properties.contains(Property.REFERENCE_MATCHING)) {
            Map<ReferenceRun.ReceiveKey, Integer> expected = ReferenceRun.matches(scenario);
            for (ScenarioRecord.ReceiveRecord r : receives) {
                Message m = identified.get(r);
                if (scenario.patterns().get(r.rank()) == ReceivePattern.SPECIFIC && m != null) {
                    Integer want = expected.get(new ReferenceRun.ReceiveKey(r.rank(), r.step().index()));
                    if (want != null && want != m.id()) {
                        problems.add("rank " + r.rank() + ": " + r.step() + " got " + m + " but MPI matching gives it "
                                + scenario.messages().get(want));
                    }
                }
            }
        }
        if (properties.contains(Property.EXACTLY_ONCE)) {
            List<Integer> sent = scenario.messages().stream().map(Message::id).toList();
            List<Integer> got = receives.stream().map(identified::get).filter(java.util.Objects::nonNull).map(Message::id).toList();
            // A receive that got a message no one sent explains at most one loss; name both.
            for (String p : ExactlyOnceChecker.check(sent, got, unexplained)) {
                problems.add(p.replaceAll("\\b(\\d+) was", "m$1 was").replace("never received: [", "never received: messages ["));
            }
            record.run().leftovers().forEach(l -> problems.add(l.toString() + " that no receive took (a duplicate?)"));
        }
        if (properties.contains(Property.CHANNEL_ORDER)) {
            List<ChannelOrderChecker.Delivery> deliveries = new ArrayList<>();
            for (ScenarioRecord.ReceiveRecord r : receives) {
                Message m = identified.get(r);
                if (m != null) {
                    deliveries.add(new ChannelOrderChecker.Delivery(r.rank(), r.step().index(), r.spec().source(), r.spec().tag(),
                            m.source(), m.id(), m.tag(), m.toString()));
                }
            }
            problems.addAll(ChannelOrderChecker.check(deliveries));
        }
        if (properties.contains(Property.SYNCHRONOUS)) {
            Map<Integer, ScenarioRecord.ReceiveRecord> receiverOf = new HashMap<>();
            identified.forEach((r, m) -> receiverOf.put(m.id(), r));
            for (ScenarioRecord.SendRecord s : record.sends()) {
                Message m = scenario.messages().get(s.message());
                ScenarioRecord.ReceiveRecord r = receiverOf.get(m.id());
                if (m.synchronous() && r != null && s.completedNanos() >= 0 && s.completedNanos() < r.postNanos()) {
                    problems.add("the synchronous send of " + m + " completed " + (r.postNanos() - s.completedNanos()) / 1_000
                            + " us before rank " + m.dest() + " started the receive that got it");
                }
            }
        }
        if (properties.contains(Property.LINEARIZABLE) && problems.isEmpty()) {
            linearizability(record, identified).ifPresent(problems::add);
        }
        return problems;
    }

    /** The problems with one receive that got message {@code m}. */
    private static List<String> delivery(ScenarioRecord.ReceiveRecord r, Message m) {
        List<String> problems = new ArrayList<>();
        String who = "rank " + r.rank() + ": " + r.step();
        Status s = r.status();
        if (!r.step().spec().matches(m) || !r.spec().matches(m)) {
            problems.add(who + " got " + m + ", which it does not match");
        }
        boolean shouldTruncate = m.bytes() > r.step().capacity();
        if (shouldTruncate != r.truncated()) {
            problems.add(who + " got " + m + (shouldTruncate ? " without the truncation error MPI requires"
                    : " with a truncation error although the buffer was large enough"));
        }
        if (r.truncated() && r.messageBytes() != m.bytes()) {
            problems.add(who + ": the truncation reports a message of " + r.messageBytes() + " bytes, " + m + " has " + m.bytes());
        }
        if (s.cancelled()) {
            problems.add(who + " completed as cancelled although it received " + m);
        }
        if (r.untouchedFrom() >= 0) {
            problems.add(who + " changed buffer byte " + r.untouchedFrom() + ", past the " + s.byteCount()
                    + " bytes it delivered (capacity " + r.step().capacity() + ")");
        }
        r.probed().ifPresent(p -> {
            if (p.source() != m.source() || p.tag() != m.tag() || p.byteCount() != m.bytes()) {
                problems.add(who + ": the probe reported " + p + " but the receive that followed got " + m);
            }
        });
        return problems;
    }

    /** The message this receive got: status and bytes must agree with it. */
    private static Optional<Message> identify(Scenario scenario, ScenarioRecord.ReceiveRecord r, Set<Integer> taken) {
        Status s = r.status();
        MemorySegment data = MemorySegment.ofArray(r.data());
        for (Message m : scenario.messages()) {
            if (taken.contains(m.id()) || m.dest() != r.rank() || m.source() != s.source() || m.tag() != s.tag()) {
                continue;
            }
            long expectBytes = Math.min(m.bytes(), r.step().capacity());
            if (s.byteCount() == expectBytes && PayloadPattern.matches(data, m.id(), expectBytes)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** Why a receive's message could not be identified, naming what it resembles. */
    private static String explain(Scenario scenario, ScenarioRecord.ReceiveRecord r) {
        Status s = r.status();
        MemorySegment data = MemorySegment.ofArray(r.data());
        String start = HexFormat.of().formatHex(r.data(), 0, Math.min(SHOWN_BYTES, r.data().length));
        StringBuilder b = new StringBuilder("rank " + r.rank() + ": " + r.step() + " completed with " + s
                + (r.truncated() ? " (truncated)" : "") + " and bytes " + start + (r.data().length > SHOWN_BYTES ? "..." : ""));
        for (Message m : scenario.messages()) {
            if (m.dest() == r.rank() && r.data().length > 0 && PayloadPattern.matches(data, m.id(), Math.min(r.data().length, m.bytes()))
                    && r.data().length <= m.bytes()) {
                b.append("; the bytes are those of ").append(m);
                if (m.source() != s.source() || m.tag() != s.tag()) {
                    b.append(" but the status names source ").append(s.source()).append(" and tag ").append(s.tag());
                } else {
                    b.append(" (").append(s.byteCount()).append(" bytes reported)");
                }
                return b.toString();
            }
        }
        long first = -1;
        for (Message m : scenario.messages()) {
            if (m.dest() == r.rank() && m.source() == s.source() && m.tag() == s.tag()) {
                first = PayloadPattern.firstMismatch(data, m.id(), Math.min(r.data().length, m.bytes()));
                b.append("; closest candidate ").append(m).append(" differs from byte ").append(first);
                break;
            }
        }
        return b.toString();
    }

    private static Optional<String> linearizability(ScenarioRecord record, Map<ScenarioRecord.ReceiveRecord, Message> identified) {
        Scenario scenario = record.scenario();
        List<LinearizabilityChecker.Operation<MailboxModel>> ops = new ArrayList<>();
        Map<Long, Integer> onChannel = new HashMap<>();
        Map<Integer, Integer> order = new HashMap<>();
        for (Message m : scenario.messages()) {
            order.put(m.id(), onChannel.merge(((long) m.source() << Integer.SIZE) | m.dest(), 1, Integer::sum) - 1);
        }
        for (ScenarioRecord.SendRecord s : record.sends()) {
            Message m = scenario.messages().get(s.message());
            ops.add(new LinearizabilityChecker.Operation<>("send " + m, s.startNanos(), Math.max(s.startNanos(), s.completedNanos()),
                    MailboxModel.send(m.id(), m.source(), m.dest(), m.tag(), order.get(m.id()))));
        }
        identified.forEach((r, m) -> ops.add(new LinearizabilityChecker.Operation<>("rank " + r.rank() + " recv " + r.spec() + " = m"
                + m.id(), r.postNanos(), r.completeNanos(),
                MailboxModel.receive(r.rank(), r.spec().source(), r.spec().tag(), m.id(), m.source()))));
        if (ops.size() > LinearizabilityChecker.MAX_OPERATIONS) {
            return Optional.empty();
        }
        return LinearizabilityChecker.check(MailboxModel.EMPTY, ops);
    }
}
