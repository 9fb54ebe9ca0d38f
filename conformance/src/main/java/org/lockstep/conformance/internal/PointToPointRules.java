package org.lockstep.conformance.internal;

import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;
import static org.lockstep.api.Communicator.PROC_NULL;
import static org.lockstep.conformance.Group.PT2PT;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Level.STOCHASTIC;
import static org.lockstep.conformance.Origin.ibm;
import static org.lockstep.conformance.Origin.imb;
import static org.lockstep.conformance.Origin.mpi4py;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;
import static org.lockstep.conformance.internal.Definitions.numbered;
import static org.lockstep.conformance.internal.Definitions.optional;
import static org.lockstep.conformance.internal.Definitions.sequenceOf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleViolation;
import org.lockstep.conformance.run.RankContext;
import org.lockstep.conformance.scenario.ScenarioChecks;
import org.lockstep.conformance.scenario.ScenarioExecution;
import org.lockstep.conformance.scenario.ScenarioShape;

/** The point-to-point rules (MPI 4.1 chapter 3), re-expressed from the suites each names. */
final class PointToPointRules {
    private static final Datatype BYTE = Datatype.BYTE;
    /** Iterations of a loop that must not see a request complete. */
    private static final int STILL_PENDING_POLLS = 2_000;

    private PointToPointRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(PT2PT, 1, REQUIRED, "nonOvertaking",
                        "Messages from one sender to one receiver with one tag are received in send order, whatever mix of send, isend, ssend and issend sent them.",
                        List.of(ibm("pt2pt/Seq.java"), mpi4py("test/test_p2p_buf.py")), PointToPointRules::nonOvertaking),
                messaging(PT2PT, 2, REQUIRED, "nonOvertakingAnyTag",
                        "Receives with ANY_TAG from one sender get that sender's messages in send order, and each status names the message's tag.",
                        List.of(ibm("pt2pt/Wildcard.java"), standard("§3.5 message order")), PointToPointRules::nonOvertakingAnyTag),
                messaging(PT2PT, 3, REQUIRED, "earliestPostedReceiveWins",
                        "A message matches the earliest posted receive that matches it, specific or wildcard.",
                        List.of(standard("§3.5 message order"), mpich("pt2pt/anyall.c")), PointToPointRules::earliestPostedReceiveWins),
                messaging(PT2PT, 4, REQUIRED, "anySourceStatusNamesSender",
                        "A receive with ANY_SOURCE reports in its status the rank that really sent the message it got.",
                        List.of(ibm("pt2pt/Wildcard.java"), mpich("pt2pt/recv_any.c")), PointToPointRules::anySourceStatusNamesSender),
                messaging(PT2PT, 5, REQUIRED, "anyTagStatusNamesTag",
                        "A receive or probe with ANY_TAG reports the message's real tag, including 0 and large tags.",
                        List.of(mpi4py("test/test_status.py"), ibm("pt2pt/Wildcard.java")), PointToPointRules::anyTagStatusNamesTag),
                messaging(PT2PT, 6, REQUIRED, "exactlyOnceUnderFlood",
                        "Every message of a flood from all ranks to one is received exactly once, and nothing else is.",
                        List.of(mpich("pt2pt/sendflood.c"), mpich("pt2pt/many_isend.c")), PointToPointRules::exactlyOnceUnderFlood),
                messaging(PT2PT, 7, REQUIRED, "byteExactPayloads",
                        "Payloads of 0, 1, 2^k-1, 2^k, 2^k+1 bytes and the indirection threshold plus or minus one arrive byte for byte.",
                        List.of(imb("PingPong"), mpich("pt2pt/pingping.c"), ibm("pt2pt/Send2.java")), PointToPointRules::byteExactPayloads),
                messaging(PT2PT, 8, REQUIRED, "guardBytesUntouched",
                        "A receive writes only the bytes of the message it delivers: buffer bytes after them and memory around the buffer stay untouched, truncated or not.",
                        List.of(mpich("pt2pt/huge_underflow.c"), imb("PingPing")), PointToPointRules::guardBytesUntouched),
                messaging(PT2PT, 9, REQUIRED, "probeDoesNotConsume",
                        "probe and iprobe report a waiting message's source, tag and length and leave it to be received.",
                        List.of(mpich("pt2pt/probe-unexp.c"), ibm("pt2pt/Iprobe.java")), PointToPointRules::probeDoesNotConsume),
                messaging(PT2PT, 10, REQUIRED, "blockingProbeWakes",
                        "A blocking probe that starts before any matching message is sent returns once one arrives.",
                        List.of(ibm("pt2pt/Probe.java"), mpich("pt2pt/isendselfprobe.c")), PointToPointRules::blockingProbeWakes),
                messaging(PT2PT, 11, REQUIRED, "iprobeSelectsSourceAndTag",
                        "iprobe reports only messages whose source and tag match, and reports nothing when none does.",
                        List.of(ibm("pt2pt/Iprobe.java")), PointToPointRules::iprobeSelectsSourceAndTag),
                messaging(PT2PT, 12, REQUIRED, "statusCounts",
                        "A status's byte count is the bytes received and its element count is UNDEFINED unless they are whole elements of the type asked about.",
                        List.of(ibm("pt2pt/Getcount.java"), mpich("pt2pt/big_count_status.c")), PointToPointRules::statusCounts),
                messaging(PT2PT, 13, REQUIRED, "truncationOfPostedReceive",
                        "A posted receive too small for the message that matches it completes with TRUNCATE, holding the message's first bytes; the next message is intact.",
                        List.of(mpich("errors/pt2pt/truncmsg1.c")), PointToPointRules::truncationOfPostedReceive),
                messaging(PT2PT, 14, REQUIRED, "truncationOfUnexpectedMessage",
                        "A receive too small for an already waiting message completes with TRUNCATE and consumes it; the next message is intact.",
                        List.of(mpich("errors/pt2pt/truncmsg2.c")), PointToPointRules::truncationOfUnexpectedMessage),
                messaging(PT2PT, 15, REQUIRED, "ssendWaitsForReceive",
                        "A synchronous send cannot complete before the matching receive has started.",
                        List.of(ibm("pt2pt/Ssend.java"), standard("§3.4 synchronous mode")), PointToPointRules::ssendWaitsForReceive),
                messaging(PT2PT, 16, REQUIRED, "selfMessages",
                        "A rank can send to itself with isend, issend and sendrecv; an issend to itself completes only after its own receive.",
                        List.of(mpich("pt2pt/sendself.c"), mpich("pt2pt/isendself.c")), PointToPointRules::selfMessages),
                messaging(PT2PT, 17, REQUIRED, "nullRequests",
                        "The multi-completion calls skip null requests, waitAny of only nulls is UNDEFINED, and requests on PROC_NULL are complete at once.",
                        List.of(mpich("pt2pt/waittestnull.c"), mpich("pt2pt/waitany-null.c"), ibm("pt2pt/Waitnull.java")),
                        PointToPointRules::nullRequests),
                messaging(PT2PT, 18, REQUIRED, "procNull",
                        "Sends to and receives or probes from PROC_NULL complete at once with source PROC_NULL, tag ANY_TAG and count 0, touching no buffer and no message.",
                        List.of(mpich("pt2pt/probenull.c"), mpich("pt2pt/recvnull.c")), PointToPointRules::procNull),
                messaging(PT2PT, 19, REQUIRED, "testAllChangesNothingUntilAll",
                        "testAll reports nothing until every request is complete, and a request it found complete keeps its status and data.",
                        List.of(ibm("pt2pt/Testall.java"), mpi4py("test/test_request.py")), PointToPointRules::testAllChangesNothingUntilAll),
                messaging(PT2PT, 20, REQUIRED, "waitAnyAndSome",
                        "waitAny returns a completed request's index, testAny returns UNDEFINED while none is complete, and waitSome and testSome list exactly the completed ones.",
                        List.of(ibm("pt2pt/Waitany.java"), ibm("pt2pt/Testsome.java"), ibm("pt2pt/Waitsome.java")),
                        PointToPointRules::waitAnyAndSome),
                messaging(PT2PT, 21, REQUIRED, "cancelUnmatchedReceive",
                        "A receive cancelled before it matched completes as cancelled and consumes nothing; a later receive gets the message.",
                        List.of(mpich("pt2pt/cancelrecv.c"), mpich("pt2pt/cancelanysrc.c")), PointToPointRules::cancelUnmatchedReceive),
                messaging(PT2PT, 22, REQUIRED, "cancelMatchedReceive",
                        "Cancelling a receive that has already matched changes nothing: it completes normally with its message.",
                        List.of(mpich("pt2pt/rcancel.c"), standard("§3.8.4 cancel")), PointToPointRules::cancelMatchedReceive),
                messaging(PT2PT, 23, REQUIRED, "badArgumentsErrorClass",
                        "A bad rank, tag, count, datatype or buffer is rejected with its MPI error class and leaves the communicator usable.",
                        List.of(mpich("errors/pt2pt/proberank.c"), mpi4py("test/test_errorcode.py")), PointToPointRules::badArgumentsErrorClass),
                messaging(PT2PT, 24, REQUIRED, "tagSelectsAmongWaiting",
                        "A receive for one tag takes the earliest waiting message with that tag, passing over earlier messages with other tags, which keep their order.",
                        List.of(standard("§3.5 message selection by tag")), PointToPointRules::tagSelectsAmongWaiting),
                messaging(PT2PT, 25, REQUIRED, "sendrecvRing",
                        "sendrecv around a ring of any size completes without deadlock and each rank gets its neighbour's payload.",
                        List.of(ibm("pt2pt/Sendrecv.java"), mpich("pt2pt/sendrecv1.c")), PointToPointRules::sendrecvRing),
                messaging(PT2PT, 26, REQUIRED, "closedCommunicatorRejects",
                        "Every call on a closed communicator fails with COMM.",
                        List.of(standard("§7.4.3 communicator destructors"), mpi4py("test/test_comm.py")), PointToPointRules::closedCommunicatorRejects),
                messaging(PT2PT, 27, REQUIRED, "largestTags",
                        "Tags up to TAG_UB are sent and matched like any other.",
                        List.of(mpich("pt2pt/large_tag.c")), PointToPointRules::largestTags),
                messaging(PT2PT, 28, REQUIRED, "datatypesRoundTrip",
                        "Every predefined datatype's values, NaN payloads and negative zero included, arrive bit for bit with the element count of that type.",
                        List.of(mpich("pt2pt/dtype_send.c"), mpi4py("test/test_p2p_buf.py")), PointToPointRules::datatypesRoundTrip),
                messaging(PT2PT, 29, REQUIRED, "allocatedMemoryAsBuffer",
                        "Memory from allocate has the size asked for and works as a send and receive buffer until freed.",
                        List.of(ibm("pt2pt/todo/Allocmem.java"), mpi4py("test/test_mem.py")), PointToPointRules::allocatedMemoryAsBuffer),
                messaging(PT2PT, 30, REQUIRED, "generatedProgramsMatchReference",
                        "Generated programs of sends, wildcard receives, probes, cancels and multi-completions deliver what the sequential reference matching engine says, intact and in channel order.",
                        List.of(standard("§3.5 message order"), mpich("pt2pt/anyall.c")), PointToPointRules::generatedProgramsMatchReference),
                optional(PT2PT, 31, Capability.SEND_CANCEL, "cancelUnmatchedSend",
                        "A send cancelled before it matched completes as cancelled and is never received.",
                        List.of(mpich("pt2pt/scancel.c"), mpich("pt2pt/scancel_unmatch.c")), PointToPointRules::cancelUnmatchedSend),
                messaging(PT2PT, 32, STOCHASTIC, "racingWildcardReceives",
                        "Concurrent senders racing into ANY_SOURCE and specific receives, repeated: exactly once, in channel order.",
                        List.of(mpich("pt2pt/sendflood.c"), ibm("pt2pt/Seq.java")), PointToPointRules::racingWildcardReceives),
                messaging(PT2PT, 33, REQUIRED, "progressPastUnexpectedMessages",
                        "A receive whose message was sent after many messages it does not match completes while those stay unreceived (MPI's progress rule).",
                        List.of(standard("§3.5 progress"), mpich("pt2pt/sendflood.c")), PointToPointRules::progressPastUnexpectedMessages));
    }

    // ---------------------------------------------------------------- order and matching

    private static void nonOvertaking(MessagingRuleContext c) {
        int tag = 3;
        int perSender = 48;
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "non-overtaking", rank -> {
                Communicator w = rank.comm();
                if (w.rank() != 0) {
                    List<Request> pending = new ArrayList<>();
                    for (int i = 0; i < perSender; i++) {
                        MemorySegment m = numbered(i, 8 + (i % 3) * 24);
                        switch (i % 4) {
                            case 0 -> w.send(m, m.byteSize(), BYTE, 0, tag);
                            case 1 -> pending.add(w.isend(m, m.byteSize(), BYTE, 0, tag));
                            case 2 -> w.ssend(m, m.byteSize(), BYTE, 0, tag);
                            default -> pending.add(w.issend(m, m.byteSize(), BYTE, 0, tag));
                        }
                    }
                    Request.waitAll(pending.toArray(Request[]::new));
                    return;
                }
                int[] next = new int[w.size()];
                MemorySegment b = MemorySegment.ofArray(new byte[64]);
                for (int k = 0; k < perSender * (w.size() - 1); k++) {
                    Status s = w.recv(b, b.byteSize(), BYTE, ANY_SOURCE, tag);
                    int seq = sequenceOf(b);
                    check(seq == next[s.source()], "rank 0 received message " + seq + " of rank " + s.source() + " when message "
                            + next[s.source()] + " was due: a message overtook another");
                    next[s.source()]++;
                }
            });
        }
    }

    private static void nonOvertakingAnyTag(MessagingRuleContext c) {
        int count = 40;
        c.runClean(2, "ANY_TAG order", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                List<Request> pending = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    MemorySegment m = numbered(i, 16);
                    pending.add(w.isend(m, m.byteSize(), BYTE, 1, i % 5));
                }
                Request.waitAll(pending.toArray(Request[]::new));
                return;
            }
            MemorySegment b = MemorySegment.ofArray(new byte[16]);
            for (int i = 0; i < count; i++) {
                Status s = w.recv(b, 16, BYTE, 0, ANY_TAG);
                checkEquals(i, sequenceOf(b), "message received by the ANY_TAG receive number " + i);
                checkEquals(i % 5, s.tag(), "tag in the status of message " + i);
            }
        });
    }

    private static void earliestPostedReceiveWins(MessagingRuleContext c) {
        c.runClean(2, "posted receive order", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                rank.awaitSignal("posted");
                int[] tags = {5, 5, 9, 9};
                for (int i = 0; i < tags.length; i++) {
                    w.send(new int[] {i}, 1, tags[i]);
                }
                return;
            }
            int[][] got = new int[4][1];
            Request first = w.irecv(got[0], 0, 5);
            Request second = w.irecv(got[1], 0, 5);
            Request wildcard = w.irecv(got[2], ANY_SOURCE, ANY_TAG);
            Request specific = w.irecv(got[3], 0, 9);
            rank.signal("posted");
            Status[] s = Request.waitAll(first, second, wildcard, specific);
            checkEquals(List.of(0, 1, 2, 3), List.of(got[0][0], got[1][0], got[2][0], got[3][0]),
                    "messages 0..3 taken by the receives in posting order (0,5), (0,5), (ANY_SOURCE,ANY_TAG), (0,9)");
            checkEquals(9, s[2].tag(), "tag in the wildcard receive's status");
        });
    }

    private static void anySourceStatusNamesSender(MessagingRuleContext c) {
        int perSender = 10;
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, "ANY_SOURCE statuses", rank -> {
                Communicator w = rank.comm();
                if (w.rank() != 0) {
                    for (int i = 0; i < perSender; i++) {
                        w.send(new int[] {w.rank() * 1000 + i}, 0, i);
                    }
                    return;
                }
                int[] perSource = new int[w.size()];
                int[] v = new int[1];
                for (int k = 0; k < perSender * (w.size() - 1); k++) {
                    Status s = w.recv(v, ANY_SOURCE, k / (w.size() - 1));
                    checkEquals(s.source() * 1000 + s.tag(), v[0], "payload of the message whose status names rank "
                            + s.source() + " and tag " + s.tag());
                    perSource[s.source()]++;
                }
                for (int r = 1; r < w.size(); r++) {
                    checkEquals(perSender, perSource[r], "messages whose status names rank " + r);
                }
            });
        }
    }

    private static void anyTagStatusNamesTag(MessagingRuleContext c) {
        int[] tags = {0, 1, 77, 65_535, Communicator.TAG_UB - 1};
        c.runClean(2, "ANY_TAG statuses", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                for (int t : tags) {
                    w.send(new int[] {t}, 1, t);
                }
                return;
            }
            int[] v = new int[1];
            for (int t : tags) {
                Status probed = w.probe(0, ANY_TAG);
                checkEquals(t, probed.tag(), "tag reported by probe(0, ANY_TAG)");
                Status s = w.recv(v, 0, ANY_TAG);
                checkEquals(v[0], s.tag(), "tag in the status of the message carrying " + v[0]);
            }
        });
    }

    private static void exactlyOnceUnderFlood(MessagingRuleContext c) {
        int perSender = 200;
        int n = c.largestRanks(2, 8);
        c.runClean(n, "flood", rank -> {
            Communicator w = rank.comm();
            if (w.rank() != 0) {
                List<Request> pending = new ArrayList<>();
                for (int i = 0; i < perSender; i++) {
                    long id = w.rank() * 1_000_000L + i;
                    pending.add(w.isend(new long[] {id}, 0, i % 4));
                }
                Request.waitAll(pending.toArray(Request[]::new));
                return;
            }
            Set<Long> seen = new HashSet<>();
            long[] v = new long[1];
            for (int k = 0; k < perSender * (w.size() - 1); k++) {
                Status s = w.recv(v, ANY_SOURCE, ANY_TAG);
                check(seen.add(v[0]), "message " + v[0] + " was received twice");
                checkEquals(v[0] / 1_000_000L, (long) s.source(), "sender of message " + v[0] + " in its status");
                checkEquals((int) (v[0] % 1_000_000L % 4), s.tag(), "tag of message " + v[0] + " in its status");
            }
        });
    }

    private static List<Integer> interestingSizes(int threshold) {
        TreeSet<Integer> sizes = new TreeSet<>(List.of(0, 1, 2, 3));
        for (int k = 2; k <= 13; k++) {
            sizes.addAll(List.of((1 << k) - 1, 1 << k, (1 << k) + 1));
        }
        sizes.addAll(List.of(threshold - 1, threshold, threshold + 1, 2 * threshold - 1, 2 * threshold + 1));
        sizes.removeIf(s -> s < 0);
        return List.copyOf(sizes);
    }

    private static void byteExactPayloads(MessagingRuleContext c) {
        List<Integer> sizes = interestingSizes(c.threshold());
        c.runClean(2, "payload sizes", rank -> {
            Communicator w = rank.comm();
            for (int size : sizes) {
                if (w.rank() == 0) {
                    w.send(PayloadPattern.of(size, size), size, BYTE, 1, 0);
                } else {
                    MemorySegment b = MemorySegment.ofArray(new byte[size]);
                    Status s = w.recv(b, size, BYTE, 0, 0);
                    checkEquals((long) size, s.byteCount(), "byte count of a message of " + size + " bytes");
                    long bad = PayloadPattern.firstMismatch(b, size, size);
                    check(bad < 0, "a message of " + size + " bytes arrived with byte " + bad + " wrong");
                }
            }
        });
    }

    private static void guardBytesUntouched(MessagingRuleContext c) {
        int t = c.threshold();
        int guard = 32;
        int slack = 16;
        List<Integer> sizes = List.of(0, 1, 7, Math.max(1, t - 1), t + 1, 3 * t);
        c.runClean(2, "guard bytes", rank -> {
            Communicator w = rank.comm();
            for (int size : sizes) {
                for (boolean truncate : new boolean[] {false, true}) {
                    if (w.rank() == 0) {
                        w.send(PayloadPattern.of(size, size), size, BYTE, 1, 0);
                        continue;
                    }
                    int capacity = truncate ? size / 2 : size + slack;
                    MemorySegment whole = MemorySegment.ofArray(new byte[capacity + 2 * guard]);
                    whole.fill(ScenarioExecution.FILL);
                    MemorySegment window = whole.asSlice(guard, capacity);
                    long delivered;
                    try {
                        delivered = w.recv(window, capacity, BYTE, 0, 0).byteCount();
                        check(!truncate || size == 0, "a message of " + size + " bytes into " + capacity + " was not truncated");
                    } catch (TruncationException e) {
                        check(truncate && size > capacity, "a message of " + size + " bytes into " + capacity + " was truncated");
                        delivered = e.status().byteCount();
                    }
                    check(PayloadPattern.matches(window, size, delivered), "the first " + delivered + " bytes of a message of "
                            + size + " bytes are wrong");
                    for (long i = 0; i < whole.byteSize(); i++) {
                        boolean outside = i < guard || i >= guard + delivered;
                        if (outside && whole.get(ValueLayout.JAVA_BYTE, i) != ScenarioExecution.FILL) {
                            throw new RuleViolation("receiving " + size + " bytes into a buffer of " + capacity
                                    + " changed byte " + (i - guard) + " relative to the buffer, outside the " + delivered
                                    + " bytes it delivered");
                        }
                    }
                }
            }
        });
    }

    // ---------------------------------------------------------------- probes

    private static void probeDoesNotConsume(MessagingRuleContext c) {
        c.runClean(2, "probe", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                w.send(PayloadPattern.of(24, 24), 24, BYTE, 1, 5);
                return;
            }
            Status probed = w.probe(ANY_SOURCE, ANY_TAG);
            checkEquals(Status.of(0, 5, 24), probed, "status reported by probe(ANY_SOURCE, ANY_TAG)");
            Optional<Status> again = w.iprobe(0, 5);
            check(again.isPresent(), "after a probe, iprobe(0, 5) no longer sees the message: the probe consumed it");
            checkEquals(Status.of(0, 5, 24), again.get(), "status reported by iprobe(0, 5)");
            check(w.iprobe(0, 6).isEmpty(), "iprobe(0, 6) reported a message, but none has tag 6");
            MemorySegment b = MemorySegment.ofArray(new byte[24]);
            w.recv(b, 24, BYTE, 0, 5);
            check(PayloadPattern.matches(b, 24, 24), "the probed message arrived damaged");
            check(w.iprobe(ANY_SOURCE, ANY_TAG).isEmpty(), "iprobe still reports a message after the only one was received");
        });
    }

    /** Rounds of {@link #blockingProbeWakes}: a probe that misses its wake-up passes a round only if the sender wins a race. */
    private static final int PROBE_ROUNDS = 4;

    private static void blockingProbeWakes(MessagingRuleContext c) {
        c.runClean(2, "blocking probe", rank -> {
            for (int round = 0; round < PROBE_ROUNDS; round++) {
                if (rank.rank() == 0) {
                    rank.awaitSignal("probing " + round);
                    rank.comm().send(new int[] {7}, 1, 7);
                    rank.awaitSignal("probing again " + round);
                    rank.comm().send(new long[] {8, 9}, 1, 8);
                    continue;
                }
                RankContext.Call call = rank.calling("probe", "provider's own probe(0, 7), before anything is sent");
                rank.signal("probing " + round);
                Status s = rank.raw().probe(0, 7);
                call.done(s.toString());
                checkEquals(Status.of(0, 7, 4), s, "status of the provider's blocking probe(0, 7)");
                rank.comm().recv(new int[1], 0, 7);
                call = rank.calling("probe", "provider's own probe(ANY_SOURCE, ANY_TAG), before anything is sent");
                rank.signal("probing again " + round);
                s = rank.raw().probe(ANY_SOURCE, ANY_TAG);
                call.done(s.toString());
                checkEquals(Status.of(0, 8, 16), s, "status of the provider's blocking probe(ANY_SOURCE, ANY_TAG)");
                rank.comm().recv(new long[2], 0, 8);
            }
        });
    }

    private static void iprobeSelectsSourceAndTag(MessagingRuleContext c) {
        c.rankCounts(3, 3);
        c.runClean(3, "iprobe selection", rank -> {
            Communicator w = rank.comm();
            if (w.rank() != 0) {
                w.send(new int[] {w.rank()}, 0, w.rank());
                return;
            }
            w.probe(1, 1);
            w.probe(2, 2);
            check(w.iprobe(1, 2).isEmpty(), "iprobe(1, 2) reported a message; rank 1 sent only tag 1");
            check(w.iprobe(2, 1).isEmpty(), "iprobe(2, 1) reported a message; rank 2 sent only tag 2");
            check(w.iprobe(0, ANY_TAG).isEmpty(), "iprobe(0, ANY_TAG) reported a message; rank 0 sent nothing");
            checkEquals(Optional.of(Status.of(1, 1, 4)), w.iprobe(1, ANY_TAG), "iprobe(1, ANY_TAG)");
            checkEquals(Optional.of(Status.of(2, 2, 4)), w.iprobe(ANY_SOURCE, 2), "iprobe(ANY_SOURCE, 2)");
            w.recv(new int[1], 1, 1);
            w.recv(new int[1], 2, 2);
            check(w.iprobe(ANY_SOURCE, ANY_TAG).isEmpty(), "iprobe reports a message after both were received");
        });
    }

    private static void statusCounts(MessagingRuleContext c) {
        c.runClean(2, "status counts", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                w.send(new byte[12], 1, 0);
                w.send(new int[10], 1, 1);
                w.send(new byte[7], 1, 2);
                w.send(new byte[0], 1, 3);
                return;
            }
            Status twelve = w.recv(MemorySegment.ofArray(new int[4]), 4, Datatype.INT, 0, 0);
            checkEquals(12L, twelve.byteCount(), "byte count of 12 bytes received as INT");
            checkEquals(3L, twelve.count(Datatype.INT), "INT count of 12 bytes");
            checkEquals(Status.UNDEFINED, twelve.count(Datatype.LONG), "LONG count of 12 bytes");
            Status forty = w.recv(MemorySegment.ofArray(new int[10]), 10, Datatype.INT, 0, 1);
            checkEquals(10L, forty.count(Datatype.INT), "INT count of 10 ints");
            checkEquals(5L, forty.count(Datatype.DOUBLE), "DOUBLE count of 40 bytes");
            Status seven = w.recv(MemorySegment.ofArray(new byte[16]), 16, BYTE, 0, 2);
            checkEquals(7L, seven.byteCount(), "byte count of 7 bytes received into 16");
            checkEquals(Status.UNDEFINED, seven.count(Datatype.SHORT), "SHORT count of 7 bytes");
            Status none = w.recv(MemorySegment.ofArray(new byte[4]), 4, BYTE, 0, 3);
            checkEquals(0L, none.byteCount(), "byte count of an empty message");
            checkEquals(0L, none.count(Datatype.DOUBLE), "DOUBLE count of an empty message");
        });
    }

    // ---------------------------------------------------------------- truncation

    private static void truncationOfPostedReceive(MessagingRuleContext c) {
        int large = 3 * c.threshold() + 5;
        c.runClean(2, "truncation of a posted receive", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                for (int size : new int[] {100, large}) {
                    rank.awaitSignal("posted " + size);
                    w.send(PayloadPattern.of(size, size), size, BYTE, 1, 3);
                }
                w.send(new int[] {99}, 1, 4);
                return;
            }
            for (int size : new int[] {100, large}) {
                MemorySegment small = MemorySegment.ofArray(new byte[10]);
                Request r = w.irecv(small, 10, BYTE, 0, 3);
                rank.signal("posted " + size);
                expectTruncation(r::await, small, size);
            }
            int[] next = new int[1];
            w.recv(next, 0, ANY_TAG);
            checkEquals(99, next[0], "the message after the truncated ones");
        });
    }

    private static void truncationOfUnexpectedMessage(MessagingRuleContext c) {
        int large = 3 * c.threshold() + 5;
        c.runClean(2, "truncation of an unexpected message", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                Request a = w.isend(PayloadPattern.of(100, 100), 100, BYTE, 1, 3);
                Request b = w.isend(PayloadPattern.of(large, large), large, BYTE, 1, 3);
                Request d = w.isend(new int[] {99}, 1, 4);
                rank.signal("sent");
                Request.waitAll(a, b, d);
                return;
            }
            rank.awaitSignal("sent");
            w.probe(0, 4);
            for (int size : new int[] {100, large}) {
                MemorySegment small = MemorySegment.ofArray(new byte[10]);
                expectTruncation(() -> w.recv(small, 10, BYTE, 0, 3), small, size);
            }
            int[] next = new int[1];
            w.recv(next, 0, ANY_TAG);
            checkEquals(99, next[0], "the message after the truncated ones");
        });
    }

    private static void expectTruncation(java.util.function.Supplier<Status> receive, MemorySegment buffer, int size) {
        try {
            Status s = receive.get();
            throw new RuleViolation("a message of " + size + " bytes was received into 10 bytes without TRUNCATE: " + s);
        } catch (TruncationException e) {
            checkEquals(ErrorClass.TRUNCATE, e.errorClass(), "error class of the truncation");
            checkEquals(10L, e.status().byteCount(), "bytes delivered by the truncated receive of " + size + " bytes");
            checkEquals(0, e.status().source(), "source in the truncated receive's status");
            checkEquals(3, e.status().tag(), "tag in the truncated receive's status");
            checkEquals((long) size, e.messageBytes(), "message length reported by the truncation");
            check(PayloadPattern.matches(buffer, size, 10), "the truncated receive's buffer does not hold the message's first 10 bytes");
        }
    }

    // ---------------------------------------------------------------- synchronous sends, self, null requests

    private static void ssendWaitsForReceive(MessagingRuleContext c) {
        c.runClean(2, "synchronous send", rank -> {
            Communicator w = rank.comm();
            // when the receive started and when the ssend returned, on the host's one clock (ranks may be processes)
            long[] time = new long[1];
            if (w.rank() == 0) {
                Request r = w.issend(MemorySegment.ofArray(new byte[8]), 8, BYTE, 1, 2);
                for (int i = 0; i < STILL_PENDING_POLLS; i++) {
                    check(r.test().isEmpty(), "an issend completed before any receive was posted for it");
                }
                rank.signal("checked");
                r.await();
                rank.signal("ssend");
                w.ssend(MemorySegment.ofArray(new byte[8]), 8, BYTE, 1, 3);
                time[0] = System.nanoTime();
            } else {
                rank.awaitSignal("checked");
                w.recv(new byte[8], 0, 2);
                rank.awaitSignal("ssend");
                time[0] = System.nanoTime();
                w.recv(new byte[8], 0, 3);
            }
            long[][] times = Definitions.atRankZero(w, time);
            if (times != null) {
                check(times[1][0] < times[0][0], "a blocking ssend returned before its receive was started");
            }
        });
    }

    private static void selfMessages(MessagingRuleContext c) {
        c.runClean(1, "messages to self", rank -> {
            Communicator w = rank.comm();
            Request standard = w.isend(new int[] {5}, 0, 1);
            int[] v = new int[1];
            w.recv(v, 0, 1);
            standard.await();
            checkEquals(5, v[0], "isend to self");
            Request synchronous = w.issend(MemorySegment.ofArray(new int[] {6}), 1, Datatype.INT, 0, 2);
            for (int i = 0; i < STILL_PENDING_POLLS; i++) {
                check(synchronous.test().isEmpty(), "an issend to self completed before its receive was posted");
            }
            w.recv(v, 0, 2);
            synchronous.await();
            checkEquals(6, v[0], "issend to self");
            int[] in = new int[1];
            Status s = w.sendrecv(MemorySegment.ofArray(new int[] {7}), 1, Datatype.INT, 0, 3,
                    MemorySegment.ofArray(in), 1, Datatype.INT, 0, 3);
            checkEquals(7, in[0], "sendrecv with self");
            checkEquals(0, s.source(), "source of sendrecv with self");
        });
    }

    private static void nullRequests(MessagingRuleContext c) {
        c.runClean(1, "null requests", rank -> {
            Communicator w = rank.comm();
            checkEquals(Request.UNDEFINED, Request.waitAny(null, null), "waitAny of null requests");
            checkEquals(Request.UNDEFINED, Request.testAny(null, null), "testAny of null requests");
            checkEquals(0, Request.waitSome(null, null).length, "waitSome of null requests");
            check(Request.testAll(null, null).isPresent(), "testAll of null requests must report completion");
            Status[] none = Request.waitAll(null, null);
            check(none.length == 2 && none[0] == null && none[1] == null, "waitAll of null requests gives null statuses");
            Request procNull = w.irecv(new int[1], PROC_NULL, 4);
            check(procNull.test().isPresent(), "a receive from PROC_NULL is not complete at once");
            checkEquals(1, Request.waitAny(null, procNull), "waitAny(null, receive from PROC_NULL)");
            Request real = w.irecv(new int[1], 0, 9);
            w.send(new int[] {3}, 0, 9);
            Status[] mixed = Request.waitAll(null, real, null);
            check(mixed[0] == null && mixed[2] == null, "waitAll gave a status for a null request");
            checkEquals(0, mixed[1].source(), "source of a real request among nulls");
            checkEquals(1, Request.testSome(null, real, null).length, "testSome of one completed request among nulls");
        });
    }

    private static void procNull(MessagingRuleContext c) {
        c.runClean(2, "PROC_NULL", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 1) {
                w.send(new int[] {42}, 0, 4);
                return;
            }
            w.probe(1, 4);
            int[] v = {-1};
            Status s = w.recv(v, PROC_NULL, 4);
            checkEquals(new Status(PROC_NULL, ANY_TAG, 0, false, null), s, "status of a receive from PROC_NULL");
            checkEquals(-1, v[0], "buffer of a receive from PROC_NULL (it must not be written)");
            w.send(new int[] {1}, PROC_NULL, 4);
            Request r = w.isend(new int[] {1}, PROC_NULL, 4);
            check(r.test().isPresent(), "an isend to PROC_NULL is not complete at once");
            Optional<Status> p = w.iprobe(PROC_NULL, ANY_TAG);
            check(p.isPresent() && p.get().source() == PROC_NULL && p.get().byteCount() == 0,
                    "iprobe(PROC_NULL) must report at once a message from PROC_NULL of 0 bytes; got " + p);
            w.recv(v, ANY_SOURCE, 4);
            checkEquals(42, v[0], "the real message, still there after the PROC_NULL calls");
        });
    }

    private static void testAllChangesNothingUntilAll(MessagingRuleContext c) {
        c.runClean(2, "testAll", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                w.send(new int[] {11, 12}, 1, 1);
                rank.awaitSignal("second");
                w.send(new int[] {21, 22}, 1, 2);
                return;
            }
            int[] a = new int[2];
            int[] b = new int[2];
            Request first = w.irecv(a, 0, 1);
            Request second = w.irecv(b, 0, 2);
            Optional<Status> firstStatus;
            while ((firstStatus = first.test()).isEmpty()) {
                rank.checkAborted();
            }
            for (int i = 0; i < 100; i++) {
                check(Request.testAll(first, second).isEmpty(), "testAll reported completion while a receive had nothing to match");
            }
            checkEquals(firstStatus, first.test(), "the status of a completed request after testAll returned nothing");
            check(Arrays.equals(new int[] {11, 12}, a), "the data of a completed request after testAll: " + Arrays.toString(a));
            rank.signal("second");
            Optional<Status[]> all;
            while ((all = Request.testAll(first, second)).isEmpty()) {
                rank.checkAborted();
            }
            checkEquals(firstStatus.get(), all.get()[0], "first status reported by testAll");
            checkEquals(Status.of(0, 2, 8), all.get()[1], "second status reported by testAll");
            check(Arrays.equals(new int[] {21, 22}, b), "the second receive's data: " + Arrays.toString(b));
        });
    }

    private static void waitAnyAndSome(MessagingRuleContext c) {
        c.rankCounts(3, 3);
        c.runClean(3, "waitAny and waitSome", rank -> {
            Communicator w = rank.comm();
            if (w.rank() != 0) {
                rank.awaitSignal("go " + w.rank());
                w.send(new int[] {w.rank()}, 0, w.rank());
                return;
            }
            int[] fromOne = new int[1];
            int[] fromTwo = new int[1];
            Request one = w.irecv(fromOne, 1, 1);
            Request two = w.irecv(fromTwo, 2, 2);
            checkEquals(Request.UNDEFINED, Request.testAny(one, two), "testAny before anything was sent");
            checkEquals(0, Request.testSome(one, two).length, "testSome before anything was sent");
            rank.signal("go 2");
            checkEquals(1, Request.waitAny(one, two), "waitAny when only rank 2 has sent");
            checkEquals(2, fromTwo[0], "data of the completed receive");
            checkEquals(List.of(1), Arrays.stream(Request.testSome(one, two)).boxed().toList(), "testSome when only rank 2 has sent");
            rank.signal("go 1");
            int[] done = Request.waitSome(one, null);
            checkEquals(List.of(0), Arrays.stream(done).boxed().toList(), "waitSome(receive from rank 1, null)");
            checkEquals(1, fromOne[0], "data from rank 1");
        });
    }

    // ---------------------------------------------------------------- cancel

    private static void cancelUnmatchedReceive(MessagingRuleContext c) {
        c.runClean(2, "cancel of an unmatched receive", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                rank.awaitSignal("cancelled");
                w.send(new int[] {7}, 1, 1);
                w.send(new int[] {8}, 1, 2);
                return;
            }
            int[] never = {-1};
            Request r = w.irecv(never, 0, 1);
            r.cancel();
            Status s = r.await();
            check(s.cancelled(), "a receive cancelled before anything was sent completed as not cancelled: " + s);
            int[] neverAny = {-1};
            Request any = w.irecv(neverAny, ANY_SOURCE, 2);
            any.cancel();
            check(any.await().cancelled(), "an ANY_SOURCE receive cancelled before anything was sent is not cancelled");
            rank.signal("cancelled");
            int[] v = new int[1];
            w.recv(v, 0, 1);
            checkEquals(7, v[0], "the message a cancelled receive had asked for");
            w.recv(v, ANY_SOURCE, 2);
            checkEquals(8, v[0], "the message a cancelled ANY_SOURCE receive had asked for");
            check(never[0] == -1 && neverAny[0] == -1, "a cancelled receive's buffer was written");
        });
    }

    private static void cancelMatchedReceive(MessagingRuleContext c) {
        c.runClean(2, "cancel of a matched receive", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                rank.awaitSignal("posted");
                w.send(new int[] {9}, 1, 2);
                return;
            }
            int[] v = new int[1];
            Request r = w.irecv(v, 0, 2);
            rank.signal("posted");
            while (r.test().isEmpty()) {
                rank.checkAborted();
            }
            r.cancel();
            Status s = r.await();
            check(!s.cancelled(), "a receive that had completed became cancelled when cancel was called");
            checkEquals(9, v[0], "data of the receive cancelled after it matched");
        });
    }

    // ---------------------------------------------------------------- arguments, tags, ring, lifecycle

    private static void badArgumentsErrorClass(MessagingRuleContext c) {
        c.runClean(2, "bad arguments", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 1) {
                int[] v = new int[1];
                w.recv(v, 0, 0);
                checkEquals(11, v[0], "the message sent after the rejected calls");
                return;
            }
            int size = w.size();
            MemorySegment four = MemorySegment.ofArray(new int[1]);
            expectError(ErrorClass.RANK, "send to rank " + size, () -> w.send(four, 1, Datatype.INT, size, 0));
            expectError(ErrorClass.RANK, "send to rank -5", () -> w.send(four, 1, Datatype.INT, -5, 0));
            expectError(ErrorClass.RANK, "isend to rank " + (size + 1), () -> w.isend(four, 1, Datatype.INT, size + 1, 0));
            expectError(ErrorClass.RANK, "irecv from rank " + (size + 3), () -> w.irecv(four, 1, Datatype.INT, size + 3, 0));
            expectError(ErrorClass.RANK, "probe of rank " + size, () -> w.probe(size, 0));
            expectError(ErrorClass.RANK, "iprobe of rank -7", () -> w.iprobe(-7, 0));
            expectError(ErrorClass.TAG, "send with tag -1", () -> w.send(four, 1, Datatype.INT, 1, -1));
            expectError(ErrorClass.TAG, "irecv with tag -7", () -> w.irecv(four, 1, Datatype.INT, 1, -7));
            expectError(ErrorClass.TAG, "iprobe with tag -3", () -> w.iprobe(1, -3));
            expectError(ErrorClass.COUNT, "send of count -1", () -> w.send(four, -1, Datatype.INT, 1, 0));
            expectError(ErrorClass.COUNT, "send of 2 ints from a 4-byte buffer", () -> w.send(four, 2, Datatype.INT, 1, 0));
            expectError(ErrorClass.TYPE, "send with a null datatype", () -> w.send(four, 1, null, 1, 0));
            expectError(ErrorClass.BUFFER, "irecv into a read-only buffer", () -> w.irecv(four.asReadOnly(), 1, Datatype.INT, 1, 0));
            expectError(ErrorClass.BUFFER, "send of 1 int from a null buffer", () -> w.send(null, 1, Datatype.INT, 1, 0));
            w.send(new int[] {11}, 1, 0);
        });
    }

    private static void tagSelectsAmongWaiting(MessagingRuleContext c) {
        c.runClean(2, "selection by tag", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                Request a = w.isend(new int[] {1}, 1, 1);
                Request b = w.isend(new int[] {2}, 1, 2);
                Request d = w.isend(new int[] {3}, 1, 1);
                rank.signal("sent");
                Request.waitAll(a, b, d);
                return;
            }
            rank.awaitSignal("sent");
            w.probe(0, 2);
            int[] v = new int[1];
            w.recv(v, 0, 2);
            checkEquals(2, v[0], "receive for tag 2 with messages of tags 1, 2, 1 waiting");
            w.recv(v, 0, 1);
            checkEquals(1, v[0], "first receive for tag 1 (the earlier tag-1 message)");
            w.recv(v, 0, ANY_TAG);
            checkEquals(3, v[0], "the last message");
        });
    }

    private static void sendrecvRing(MessagingRuleContext c) {
        int length = 1000;
        for (int n : c.rankCounts(2, 8)) {
            c.runClean(n, "sendrecv ring", rank -> {
                Communicator w = rank.comm();
                int next = (w.rank() + 1) % w.size();
                int prev = (w.rank() + w.size() - 1) % w.size();
                for (int direction = 0; direction < 2; direction++) {
                    int to = direction == 0 ? next : prev;
                    int from = direction == 0 ? prev : next;
                    MemorySegment in = MemorySegment.ofArray(new byte[length]);
                    Status s = w.sendrecv(PayloadPattern.of(w.rank() * 10L + direction, length), length, BYTE, to, direction,
                            in, length, BYTE, from, direction);
                    checkEquals(from, s.source(), "source of the sendrecv receive");
                    check(PayloadPattern.matches(in, from * 10L + direction, length), "sendrecv delivered the wrong payload");
                }
            });
        }
    }

    private static void closedCommunicatorRejects(MessagingRuleContext c) {
        c.run(c.target(), c.target().jobOptions(1), c.limits().withoutDrain(), rank -> {
            Communicator w = rank.comm();
            w.close();
            expectError(ErrorClass.COMM, "send on a closed communicator", () -> w.send(new byte[1], 0, 0));
            expectError(ErrorClass.COMM, "isend on a closed communicator", () -> w.isend(new byte[1], 0, 0));
            expectError(ErrorClass.COMM, "irecv on a closed communicator", () -> w.irecv(new byte[1], 0, 0));
            expectError(ErrorClass.COMM, "iprobe on a closed communicator", () -> w.iprobe(0, 0));
        }).requireOk("calls on a closed communicator");
    }

    private static void largestTags(MessagingRuleContext c) {
        int[] tags = {Communicator.TAG_UB - 1, Communicator.TAG_UB};
        c.runClean(2, "largest tags", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                for (int t : tags) {
                    w.send(new int[] {t}, 1, t);
                }
                return;
            }
            int[] v = new int[1];
            for (int i = tags.length - 1; i >= 0; i--) {
                Status s = w.recv(v, 0, tags[i]);
                checkEquals(tags[i], v[0], "payload of the message with tag " + tags[i]);
                checkEquals(tags[i], s.tag(), "tag in the status");
            }
        });
    }

    private static void datatypesRoundTrip(MessagingRuleContext c) {
        int count = 5;
        c.runClean(2, "datatypes", rank -> {
            Communicator w = rank.comm();
            for (Datatype type : Datatype.predefined()) {
                long bytes = type.byteLength(count);
                MemorySegment values = MemorySegment.ofArray(new byte[(int) bytes]);
                fillValues(values, type);
                if (w.rank() == 0) {
                    w.send(values, count, type, 1, type.id());
                    continue;
                }
                MemorySegment in = MemorySegment.ofArray(new byte[(int) bytes]);
                Status s = w.recv(in, count, type, 0, type.id());
                checkEquals((long) count, s.count(type), "element count of " + count + " x " + type);
                check(in.mismatch(values) < 0, count + " x " + type + " arrived with byte " + in.mismatch(values) + " changed");
            }
        });
    }

    /** Values with awkward bits: signalling and quiet NaNs with payloads, negative zero, extremes. */
    private static void fillValues(MemorySegment s, Datatype type) {
        long[] bits = {0x7FF0_0000_0000_0001L, 0x8000_0000_0000_0000L, Long.MIN_VALUE + 1, -1L, 0x0123_4567_89AB_CDEFL};
        for (long i = 0; i < s.byteSize(); i++) {
            long word = bits[(int) (i / Long.BYTES % bits.length)];
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (word >>> (8 * (i % Long.BYTES))));
        }
        if (type.kind() == Datatype.Kind.BOOLEAN) {
            for (long i = 0; i < s.byteSize(); i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) (i % 2));
            }
        }
    }

    private static void allocatedMemoryAsBuffer(MessagingRuleContext c) {
        c.runClean(2, "allocated memory", rank -> {
            Communicator w = rank.comm();
            MemorySegment segment = w.allocate(1024);
            checkEquals(1024L, segment.byteSize(), "size of allocated memory");
            if (w.rank() == 0) {
                PayloadPattern.fill(segment, 1024, 1024);
                w.send(segment, 1024, BYTE, 1, 0);
            } else {
                w.recv(segment, 1024, BYTE, 0, 0);
                check(PayloadPattern.matches(segment, 1024, 1024), "a message received into allocated memory is damaged");
            }
            w.free(segment);
        });
    }

    // ---------------------------------------------------------------- generated, optional, stochastic

    private static void generatedProgramsMatchReference(MessagingRuleContext c) {
        List<Integer> ranks = c.rankCounts(1, 4);
        ScenarioShape shape = ScenarioShape.full(ranks, 12, ScenarioShape.sizesAround(c.threshold()));
        Set<ScenarioChecks.Property> properties = EnumSet.of(ScenarioChecks.Property.COMPLETION, ScenarioChecks.Property.DELIVERY,
                ScenarioChecks.Property.REFERENCE_MATCHING, ScenarioChecks.Property.EXACTLY_ONCE,
                ScenarioChecks.Property.CHANNEL_ORDER, ScenarioChecks.Property.SYNCHRONOUS);
        c.search(shape, scenario -> ScenarioChecks.check(ScenarioExecution.run(c.target().provider(),
                c.target().jobOptions(scenario.ranks()), c.limits(), scenario), properties));
    }

    private static void cancelUnmatchedSend(MessagingRuleContext c) {
        c.runClean(2, "cancel of an unmatched send", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                Request r = w.isend(new int[] {1}, 1, 17);
                r.cancel();
                check(r.await().cancelled(), "a send nobody receives was cancelled but did not complete as cancelled");
                w.send(new int[] {2}, 1, 18);
                return;
            }
            int[] v = new int[1];
            w.recv(v, 0, 18);
            checkEquals(2, v[0], "the message after the cancelled send");
        });
    }

    private static void racingWildcardReceives(MessagingRuleContext c) {
        int perSender = 10;
        int n = c.largestRanks(3, 4);
        for (int repetition = 0; repetition < c.settings().repetitions(); repetition++) {
            c.runClean(n, "racing wildcard receives", rank -> {
                Communicator w = rank.comm();
                if (w.rank() != 0) {
                    List<Request> pending = new ArrayList<>();
                    for (int i = 0; i < perSender; i++) {
                        pending.add(w.isend(numbered(i, 8), 8, BYTE, 0, 1));
                        pending.add(w.isend(numbered(i, 8), 8, BYTE, 0, 2));
                    }
                    Request.waitAll(pending.toArray(Request[]::new));
                    return;
                }
                int[] nextAny = new int[w.size()];
                MemorySegment b = MemorySegment.ofArray(new byte[8]);
                for (int i = 0; i < perSender; i++) {
                    for (int s = 1; s < w.size(); s++) {
                        Status st = w.recv(b, 8, BYTE, ANY_SOURCE, 1);
                        checkEquals(nextAny[st.source()]++, sequenceOf(b), "tag-1 message of rank " + st.source() + " by ANY_SOURCE");
                        w.recv(b, 8, BYTE, s, 2);
                        checkEquals(i, sequenceOf(b), "tag-2 message of rank " + s);
                    }
                }
            });
        }
    }

    private static void progressPastUnexpectedMessages(MessagingRuleContext c) {
        int backlog = 40;
        c.runClean(2, "progress past unexpected messages", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                List<Request> pending = new ArrayList<>();
                for (int i = 0; i < backlog; i++) {
                    pending.add(w.isend(numbered(i, 8), 8, BYTE, 1, 2));
                }
                pending.add(w.isend(numbered(backlog, 8), 8, BYTE, 1, 1));
                rank.signal("all started");
                Request.waitAll(pending.toArray(Request[]::new));
                return;
            }
            rank.awaitSignal("all started");
            MemorySegment b = MemorySegment.ofArray(new byte[8]);
            w.recv(b, 8, BYTE, 0, 1);
            checkEquals(backlog, sequenceOf(b), "the message sent after " + backlog + " others with another tag");
            for (int i = 0; i < backlog; i++) {
                w.recv(b, 8, BYTE, 0, 2);
                checkEquals(i, sequenceOf(b), "message " + i + " of the backlog");
            }
        });
    }
}
