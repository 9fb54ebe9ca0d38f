package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.CKPT;
import static org.lockstep.conformance.Level.OPTIONAL;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.seed;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.Origin;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleViolation;
import org.lockstep.conformance.device.PowerCycledDevice;
import org.lockstep.conformance.run.RankContext;
import org.lockstep.conformance.run.RunResult;
import org.lockstep.spi.device.CrashInjectable;

/**
 * The checkpoint and restart rules (seed 001, docs/design.md §4). One is required of every provider:
 * the checkpoint calls are portable (a declared no-op without persistence). The others need
 * {@link Capability#PERSISTENCE} and a device the kit can reach ({@link Capability#DEVICE_TRANSPORT}):
 * a job runs with checkpoints on, the whole machine loses power (through the device's
 * {@link CrashInjectable}), and the same job runs again on what survived — every rank restarts from
 * its own checkpoint — and what the restarted ranks receive is checked against what was sent.
 */
final class CheckpointRules {
    /**
     * Job property that resumes a job on a device that holds it, after a power loss: every rank is
     * its next incarnation and restarts from its own checkpoint (the mailbox transport's name for it).
     */
    static final String RECOVER_PROPERTY = "lockstep.checkpoint.recover";
    private static final String STATE = "conformance-ckpt-state";
    private static final int STATE_LONGS = 4;
    /** State word 0: how far the rank got (its own phase counter). */
    private static final long PROGRESS = 0;
    private static final int TAG = 11;
    /** Tag and key index of the message each sender sends after a restart in CKPT.02 and CKPT.03. */
    private static final int MARKER_TAG = 12;
    private static final int MARKER = 999;
    private static final Datatype BYTE = Datatype.BYTE;
    /** Crash points tried by the sweep at most (evenly spread when a send phase has more accesses). */
    private static final int MAX_CRASH_POINTS = 48;

    private CheckpointRules() {
    }

    static List<Rule> rules() {
        List<Capability> restartNeeds = List.of(Capability.PERSISTENCE, Capability.DEVICE_TRANSPORT);
        return List.of(
                messaging(CKPT, 1, REQUIRED, "checkpointCallsArePortable",
                        "A program that checkpoints runs under every provider: checkpoints are durable exactly when PERSISTENCE is "
                                + "declared, epochs count up, names are checked, and, where checkpoints are durable, a checkpoint with a pending request fails with PENDING.",
                        List.of(seed("asynchronous checkpoint"), Origin.standard("§9.3 error classes (MPI_ERR_PENDING)")),
                        CheckpointRules::checkpointCallsArePortable),
                restartRule(2, "retainedUntilCheckpointed",
                        "Messages a receiver consumed after its last checkpoint are received again, intact and exactly once, after a "
                                + "power loss restarts it: the device keeps them until the receiver has checkpointed past them.",
                        seed("stored for an asynchronous checkpoint until no longer required"), restartNeeds,
                        c -> replayAfterRestart(c, false)),
                restartRule(3, "replayInChannelOrder",
                        "After a restart, retained messages are received again in their original order on each channel, whatever their tags.",
                        seed("asynchronous restart replays the stored messages"), restartNeeds, c -> replayAfterRestart(c, true)),
                restartRule(4, "wildcardReplayInOriginalOrder",
                        "After a restart, ANY_SOURCE receives match the senders they originally matched, in the original order, "
                                + "though every message is there at once.",
                        seed("asynchronous restart (the matching order is logged)"), restartNeeds,
                        CheckpointRules::wildcardReplayInOriginalOrder),
                restartRule(5, "persistedBeforeVisible",
                        "Power lost at each device access of a send phase: after the restart every message is delivered once, intact "
                                + "and in order, and re-sent ones are dropped (nothing is visible to a recovery before it is durable).",
                        seed("persistently stored in the storage device"), restartNeeds, CheckpointRules::persistedBeforeVisible));
    }

    private static Rule restartRule(int number, String name, String summary, Origin origin, List<Capability> needs,
                                    Rule.MessagingCheck check) {
        return new Rule(CKPT, number, OPTIONAL, name, summary, List.of(origin, seed("independent checkpoint, no global rollback")),
                Set.copyOf(needs), check);
    }

    // ------------------------------------------------------------------ CKPT.01

    private static void checkpointCallsArePortable(MessagingRuleContext c) {
        boolean declared = c.capabilities().has(Capability.PERSISTENCE);
        JobOptions options = c.target().jobOptions(2).with(Checkpoints.ENABLED_PROPERTY, "true");
        c.run(c.target(), options, c.limits(), rank -> {
            Communicator w = rank.comm();
            Checkpoints cp = w.checkpoints();
            checkEquals(declared, cp.durable(), "whether rank " + w.rank() + "'s checkpoints are durable (PERSISTENCE declared: "
                    + declared + ")");
            MemorySegment state = MemorySegment.ofArray(new long[STATE_LONGS]);
            cp.register(STATE, state);
            expectError(ErrorClass.ARG, "registering a blank name", () -> cp.register(" ", MemorySegment.ofArray(new long[1])));
            if (cp.durable()) {
                // Checkpoints.unsupported() is one shared object and cannot know what a rank registered.
                expectError(ErrorClass.ARG, "registering the name '" + STATE + "' twice", () -> cp.register(STATE, MemorySegment.ofArray(new long[1])));
            }
            check(cp.restart().isEmpty(), "a first run reports a restart: " + cp.restart());
            checkEquals(0L, cp.restore(), "restore() of a first run");
            state.set(ValueLayout.JAVA_LONG, 0, 42);
            Checkpoints.CheckpointResult first = cp.checkpoint();
            Checkpoints.CheckpointResult second = cp.checkpoint();
            if (!cp.durable()) {
                checkEquals(Checkpoints.CheckpointResult.NOT_DURABLE, first, "a checkpoint without persistence");
                checkEquals(42L, state.get(ValueLayout.JAVA_LONG, 0), "the state after a no-op checkpoint");
                return;
            }
            check(first.durable() && first.epoch() == 1 && second.epoch() == 2, "epochs of the first two checkpoints: "
                    + first + ", " + second);
            check(first.stateBytes() >= state.byteSize(), "a checkpoint holding " + first.stateBytes() + " bytes of "
                    + state.byteSize() + " registered");
            int peer = 1 - w.rank();
            long[] in = new long[1];
            Request pending = w.irecv(in, peer, TAG);
            // Both ranks try with a receive pending, then let the other's complete.
            expectError(ErrorClass.PENDING, "a checkpoint while a receive is pending", cp::checkpoint);
            rank.signalWithoutProvider("tried " + w.rank());
            rank.awaitSignalWithoutProvider("tried " + peer);
            w.send(new long[] {w.rank()}, peer, TAG);
            pending.await();
            checkEquals((long) peer, in[0], "the message that was pending");
            checkEquals(3L, cp.checkpoint().epoch(), "the epoch after a refused checkpoint (a refusal changes nothing)");
        }).requireOk("checkpoint calls on 2 ranks");
    }

    // ------------------------------------------------------------------ the crash harness

    /** What one rank does in a phase of a crash-and-resume run; {@code epoch} is what {@link Checkpoints#restore()} returned. */
    @FunctionalInterface
    private interface PhaseBody {
        void run(RankContext rank, Checkpoints checkpoints, MemorySegment state, long epoch) throws Exception;
    }

    /**
     * Runs {@code before} on every rank with checkpoints on; when every rank has finished it (or
     * a crash point armed inside it struck), the machine loses power. Then the same job runs again on
     * what survived, with {@code after} on every rank, which must be a restart. Fails the rule if
     * {@code before} failed before the power loss or the second run is not clean.
     */
    private static void crashAndResume(MessagingRuleContext c, int ranks, PowerCycledDevice device, String crash, PhaseBody before,
                                       PhaseBody after) {
        MessagingTarget routed = device.route(c.target().withOptions(o -> o.with(Checkpoints.ENABLED_PROPERTY, "true")));
        AtomicReference<Throwable> early = new AtomicReference<>();
        c.run(routed, routed.jobOptions(ranks), c.limits().withoutDrain(), rank -> {
            try {
                Checkpoints cp = rank.comm().checkpoints();
                MemorySegment state = MemorySegment.ofArray(new long[STATE_LONGS]);
                cp.register(STATE, state);
                before.run(rank, cp, state, cp.restore());
            } catch (Throwable t) {
                if (!device.crash().poweredOff()) {
                    early.compareAndSet(null, t);
                }
            }
            rank.signalWithoutProvider("at crash point " + rank.rank());
            if (rank.rank() == 0) {
                for (int r = 0; r < ranks; r++) {
                    rank.awaitSignalWithoutProvider("at crash point " + r);
                }
                if (!device.crash().poweredOff()) {
                    device.crash().powerLoss(CrashInjectable.PowerLoss.WHOLE_LINES);
                }
                rank.signalWithoutProvider("power lost");
            } else {
                rank.awaitSignalWithoutProvider("power lost");
            }
        });
        if (early.get() != null) {
            Throwable t = early.get();
            throw t instanceof RuleViolation v ? v : new RuleViolation("before the power loss: " + t, "", java.util.OptionalLong.empty(), t);
        }
        device.crash().powerOn();
        MessagingTarget resumed = routed.withOptions(o -> o.with(RECOVER_PROPERTY, "true"));
        RunResult result = c.run(resumed, resumed.jobOptions(ranks), c.limits(), rank -> {
            Checkpoints cp = rank.comm().checkpoints();
            MemorySegment state = MemorySegment.ofArray(new long[STATE_LONGS]);
            cp.register(STATE, state);
            Optional<Checkpoints.Restart> restart = cp.restart();
            check(restart.isPresent(), "rank " + rank.rank() + " does not know it was restarted after the power loss");
            after.run(rank, cp, state, cp.restore());
        });
        result.requireOk("the job after " + crash + ", " + ranks + " ranks");
    }

    private static int sizeOf(int i, int threshold) {
        return switch (i % 3) {
            case 0 -> 96;
            case 1 -> threshold + 1;
            default -> 8;
        };
    }

    private static long key(int source, int i) {
        return source * 1_000L + i;
    }

    // ------------------------------------------------------------------ CKPT.02, CKPT.03

    /**
     * Rank 0 checkpoints at once, then receives every sender's messages; the senders checkpoint
     * once rank 0 has received them all (so that they will not send again, and so that a transport
     * that reclaims when a sender checkpoints meets messages consumed after the receiver's
     * checkpoint). Power is lost; after the restart rank 0 must receive every message again from
     * the device, then each sender's first new message, and nothing more.
     */
    private static void replayAfterRestart(MessagingRuleContext c, boolean checkOrder) {
        int n = c.largestRanks(2, 3);
        int perSender = 6;
        int t = c.threshold();
        try (PowerCycledDevice device = new PowerCycledDevice()) {
            crashAndResume(c, n, device, "the power loss", (rank, cp, state, epoch) -> {
                Communicator w = rank.comm();
                if (w.rank() == 0) {
                    checkEquals(1L, cp.checkpoint().epoch(), "the receiver's first checkpoint");
                    receiveAll(w, perSender, t, true, "before the power loss");
                    rank.signalWithoutProvider("received all");
                } else {
                    for (int i = 0; i < perSender; i++) {
                        int size = sizeOf(i, t);
                        w.send(PayloadPattern.of(key(w.rank(), i), size), size, BYTE, 0, i % 3);
                    }
                    state.set(ValueLayout.JAVA_LONG, PROGRESS, 1);
                    rank.awaitSignalWithoutProvider("received all");
                    checkEquals(1L, cp.checkpoint().epoch(), "sender " + w.rank() + "'s first checkpoint");
                }
            }, (rank, cp, state, epoch) -> {
                Communicator w = rank.comm();
                checkEquals(1L, epoch, "the checkpoint rank " + w.rank() + " restarted from");
                if (w.rank() == 0) {
                    receiveAll(w, perSender, t, checkOrder, "after the restart");
                    receiveMarkers(w, "after the restart and its " + perSender + " replayed messages per sender");
                } else {
                    checkEquals(1L, state.get(ValueLayout.JAVA_LONG, PROGRESS), "sender " + w.rank() + "'s restored state");
                    w.send(PayloadPattern.of(key(w.rank(), MARKER), Long.BYTES), Long.BYTES, BYTE, 0, MARKER_TAG);
                }
            });
        }
    }

    /** Receives {@code perSender} messages from every other rank; checks content, and order per channel if asked. */
    private static void receiveAll(Communicator w, int perSender, int threshold, boolean checkOrder, String when) {
        MemorySegment b = MemorySegment.ofArray(new byte[threshold + 64]);
        for (int source = 1; source < w.size(); source++) {
            Set<Integer> seen = new HashSet<>();
            for (int k = 0; k < perSender; k++) {
                Status s = w.recv(b, b.byteSize(), BYTE, source, Communicator.ANY_TAG);
                int i = identify(b, s, source, perSender, threshold);
                check(i >= 0, when + ": message " + k + " from rank " + source + " (" + s.byteCount() + " bytes, tag " + s.tag()
                        + ") is none that rank " + source + " sent");
                check(seen.add(i), when + ": message " + i + " from rank " + source + " was received twice");
                if (checkOrder) {
                    checkEquals(k, i, when + ": position on the channel from rank " + source + " of message " + i);
                }
            }
        }
    }

    /**
     * Receives from every sender the message it sent after the restart: the next on its channel
     * (a message delivered twice would come first) and the last (nothing follows it).
     */
    private static void receiveMarkers(Communicator w, String when) {
        MemorySegment b = MemorySegment.ofArray(new byte[64]);
        for (int source = 1; source < w.size(); source++) {
            Status s = w.recv(b, b.byteSize(), BYTE, source, Communicator.ANY_TAG);
            check(s.tag() == MARKER_TAG && s.byteCount() == Long.BYTES && PayloadPattern.matches(b, key(source, MARKER), Long.BYTES),
                    when + ": the next message from rank " + source + " (" + s.byteCount() + " bytes, tag " + s.tag()
                            + ") is not the one it sent after its restart (a replayed message delivered twice?)");
        }
        for (int source = 1; source < w.size(); source++) {
            Optional<Status> more = w.iprobe(source, Communicator.ANY_TAG);
            check(more.isEmpty(), when + ": one message more from rank " + source + " than it sent: " + more);
        }
    }

    private static int identify(MemorySegment b, Status s, int source, int perSender, int threshold) {
        for (int i = 0; i < perSender; i++) {
            if (s.byteCount() == sizeOf(i, threshold) && s.tag() == i % 3 && PayloadPattern.matches(b, key(source, i), s.byteCount())) {
                return i;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------ CKPT.04

    /**
     * Rank 0 checkpoints, then receives with ANY_SOURCE while the senders take turns in a drawn
     * order that no fixed scan of the sources gives (each sends only when its turn comes, so the
     * first run matches exactly that order). After the restart all messages are there at once: the
     * wildcard receives must match the drawn order again.
     */
    private static void wildcardReplayInOriginalOrder(MessagingRuleContext c) {
        int n = c.largestRanks(3, 4);
        List<Integer> order = drawnOrder(c.random(), n, 4 * (n - 1));
        try (PowerCycledDevice device = new PowerCycledDevice()) {
            crashAndResume(c, n, device, "the power loss", (rank, cp, state, epoch) -> {
                Communicator w = rank.comm();
                if (w.rank() == 0) {
                    checkEquals(1L, cp.checkpoint().epoch(), "the receiver's first checkpoint");
                    long[] in = new long[1];
                    for (int k = 0; k < order.size(); k++) {
                        rank.signalWithoutProvider("turn " + k);
                        Status s = w.recv(in, Communicator.ANY_SOURCE, TAG);
                        checkEquals(order.get(k), s.source(), "source of wildcard receive " + k + " before the power loss");
                        checkEquals((long) k, in[0], "payload of wildcard receive " + k);
                    }
                    return;
                }
                for (int k = 0; k < order.size(); k++) {
                    if (order.get(k) == w.rank()) {
                        rank.awaitSignalWithoutProvider("turn " + k);
                        w.send(new long[] {k}, 0, TAG);
                    }
                }
                state.set(ValueLayout.JAVA_LONG, PROGRESS, 1);
                cp.checkpoint();
            }, (rank, cp, state, epoch) -> {
                Communicator w = rank.comm();
                if (w.rank() != 0) {
                    checkEquals(1L, state.get(ValueLayout.JAVA_LONG, PROGRESS), "sender " + w.rank() + "'s restored state");
                    return;
                }
                checkEquals(1L, epoch, "the checkpoint the receiver restarted from");
                long[] in = new long[1];
                List<Integer> replayed = new ArrayList<>();
                for (int k = 0; k < order.size(); k++) {
                    Status s = w.recv(in, Communicator.ANY_SOURCE, TAG);
                    replayed.add(s.source());
                    check(s.source() == order.get(k) && in[0] == k, "after the restart, wildcard receives matched sources "
                            + replayed + "..., originally " + order);
                }
            });
        }
    }

    /** A random order of turns among senders 1..n-1, each taking {@code turns / (n-1)}, that is not sorted by source. */
    private static List<Integer> drawnOrder(SplittableRandom random, int n, int turns) {
        List<Integer> order = new ArrayList<>();
        for (int k = 0; k < turns; k++) {
            order.add(1 + k % (n - 1));
        }
        do {
            java.util.Collections.shuffle(order, new java.util.Random(random.nextLong()));
        } while (order.get(0) != n - 1); // starts with the highest sender: no scan from rank 0 up matches it
        return List.copyOf(order);
    }

    // ------------------------------------------------------------------ CKPT.05

    /**
     * Counts the device's mutating accesses while rank 1 sends a few messages to an idle rank 0,
     * then, for each of those accesses (or an even spread of them), runs the job again with power
     * lost at that access: after the restart rank 1 sends everything again from its checkpoint, and
     * rank 0 must receive each message once, intact and in order.
     */
    private static void persistedBeforeVisible(MessagingRuleContext c) {
        int t = c.threshold();
        int messages = 3;
        long accesses;
        try (PowerCycledDevice device = new PowerCycledDevice()) {
            long[] counted = new long[1];
            MessagingTarget routed = device.route(c.target().withOptions(o -> o.with(Checkpoints.ENABLED_PROPERTY, "true")));
            c.run(routed, routed.jobOptions(2), c.limits().withoutDrain(), rank -> {
                Communicator w = rank.comm();
                Checkpoints cp = w.checkpoints();
                cp.register(STATE, MemorySegment.ofArray(new long[STATE_LONGS]));
                cp.restore();
                cp.checkpoint();
                rank.signalWithoutProvider("checkpointed " + w.rank());
                if (w.rank() == 1) {
                    rank.awaitSignalWithoutProvider("checkpointed 0");
                    long start = device.crash().mutatingAccesses();
                    sendNumbered(w, messages, t);
                    counted[0] = device.crash().mutatingAccesses() - start;
                    rank.signalWithoutProvider("sent");
                } else {
                    rank.awaitSignalWithoutProvider("sent");
                    receiveNumbered(w, messages, t, "in the fault-free run");
                }
            }).requireOk("the fault-free send phase");
            accesses = counted[0];
        }
        check(accesses > 0, "the send phase made no mutating access of the device");
        long step = Math.max(1, accesses / MAX_CRASH_POINTS);
        for (long crashAt = 1; crashAt <= accesses; crashAt += step) {
            long at = crashAt;
            try (PowerCycledDevice device = new PowerCycledDevice()) {
                crashAndResume(c, 2, device, "power was lost at access " + at + " of the " + accesses + " of a send phase",
                        (rank, cp, state, epoch) -> {
                    Communicator w = rank.comm();
                    cp.checkpoint();
                    rank.signalWithoutProvider("checkpointed " + w.rank());
                    if (w.rank() == 1) {
                        rank.awaitSignalWithoutProvider("checkpointed 0");
                        device.crash().armPowerLoss(at, CrashInjectable.PowerLoss.WHOLE_LINES);
                        try {
                            sendNumbered(w, messages, t);
                        } catch (RuntimeException e) {
                            if (!device.crash().poweredOff()) {
                                throw e;
                            }
                        }
                        // Otherwise this crash point tested nothing: the sends made fewer accesses than counted, or the device ignored the arming.
                        check(device.crash().poweredOff(), "the power loss armed at access " + at + " of the " + accesses
                                + " that the fault-free send phase made did not strike during the send phase");
                    }
                }, (rank, cp, state, epoch) -> {
                    Communicator w = rank.comm();
                    checkEquals(1L, epoch, "the checkpoint rank " + w.rank() + " restarted from (power lost at access " + at + ")");
                    if (w.rank() == 1) {
                        sendNumbered(w, messages, t);
                    } else {
                        receiveNumbered(w, messages, t, "after power was lost at access " + at + " of " + accesses + " of the send phase");
                    }
                });
            }
        }
    }

    private static void sendNumbered(Communicator w, int messages, int threshold) {
        for (int i = 0; i < messages; i++) {
            int size = i % 2 == 0 ? 200 : threshold + 200;
            w.send(PayloadPattern.of(key(w.rank(), i), size), size, BYTE, 0, TAG);
        }
    }

    private static void receiveNumbered(Communicator w, int messages, int threshold, String when) {
        MemorySegment b = MemorySegment.ofArray(new byte[threshold + 256]);
        for (int i = 0; i < messages; i++) {
            Status s = w.recv(b, b.byteSize(), BYTE, 1, TAG);
            int size = i % 2 == 0 ? 200 : threshold + 200;
            checkEquals((long) size, s.byteCount(), when + ": length of message " + i);
            long bad = PayloadPattern.firstMismatch(b, key(1, i), size);
            check(bad < 0, when + ": message " + i + " arrived damaged from byte " + bad + " (a payload named before it was durable?)");
        }
        check(w.iprobe(1, TAG).isEmpty(), when + ": a message more than the " + messages + " sent (a re-sent one not dropped?)");
    }
}
