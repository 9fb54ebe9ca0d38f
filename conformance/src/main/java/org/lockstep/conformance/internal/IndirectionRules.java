package org.lockstep.conformance.internal;

import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;
import static org.lockstep.conformance.Group.LARGE;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.imb;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.seed;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.Rule;

/**
 * The indirection rules: messages above the threshold travel through indirect storage (the seed's
 * heap), which must be invisible to the program and must not leak.
 */
final class IndirectionRules {
    private static final Datatype BYTE = Datatype.BYTE;
    /** Indirect storage assumed per rank when the provider declares none: enough traffic to exhaust most. */
    private static final long ASSUMED_INDIRECT_BYTES = 16L << 20;
    /** Reclamation is checked by moving this many times the indirect storage through it. */
    private static final int RECLAIM_ROUNDS = 4;
    private static final int MAX_RECLAIM_MESSAGES = 4_000;

    private IndirectionRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(LARGE, 1, REQUIRED, "transparentAroundThreshold",
                        "Messages just below, at and above the indirection threshold, and ones larger than an indirect block, arrive byte for byte in both directions and modes.",
                        List.of(seed("indirection above the threshold T"), imb("PingPong")), IndirectionRules::transparentAroundThreshold),
                messaging(LARGE, 2, REQUIRED, "smallAfterLargeNotFirst",
                        "A small message sent after a large one on the same channel is not received first by a receive both match.",
                        List.of(mpich("pt2pt/manylmt.c"), seed("slot order with indirect payloads")), IndirectionRules::smallAfterLargeNotFirst),
                messaging(LARGE, 3, REQUIRED, "concurrentLargeSendsDoNotInterleave",
                        "Parts of large messages sent concurrently by several ranks, and by one rank several at a time, never interleave.",
                        List.of(mpich("pt2pt/manylmt.c"), mpich("pt2pt/huge_anysrc.c")), IndirectionRules::concurrentLargeSendsDoNotInterleave),
                messaging(LARGE, 4, REQUIRED, "reclaimedAfterReceive",
                        "Indirect storage is reclaimed once a large message is received: several times the storage a rank has flows through it.",
                        List.of(seed("unlock_mailbox releases the payload"), mpich("pt2pt/large_message.c")), IndirectionRules::reclaimedAfterReceive),
                messaging(LARGE, 5, REQUIRED, "reclaimedAfterTruncationAndCancel",
                        "Indirect storage is reclaimed after truncated receives and around cancelled ones, as after normal receives.",
                        List.of(mpich("errors/pt2pt/truncmsg1.c"), mpich("pt2pt/cancelrecv.c")), IndirectionRules::reclaimedAfterTruncationAndCancel),
                messaging(LARGE, 6, REQUIRED, "largeUnexpectedMessages",
                        "Large messages that arrive before their receives are kept intact and can be received in any tag order.",
                        List.of(mpich("pt2pt/probe-unexp.c"), mpich("pt2pt/huge_underflow.c")), IndirectionRules::largeUnexpectedMessages),
                messaging(LARGE, 7, REQUIRED, "largeSynchronousSend",
                        "A synchronous send of a large message does not complete before its receive starts, and delivers it intact.",
                        List.of(mpich("pt2pt/huge_ssend.c")), IndirectionRules::largeSynchronousSend),
                messaging(LARGE, 8, REQUIRED, "largeAnySource",
                        "Large messages from several senders received with ANY_SOURCE carry the right status and the right sender's bytes.",
                        List.of(mpich("pt2pt/huge_anysrc.c"), imb("Exchange")), IndirectionRules::largeAnySource));
    }

    private static List<Integer> largeSizes(MessagingRuleContext c) {
        int t = c.threshold();
        TreeSet<Integer> sizes = new TreeSet<>(List.of(Math.max(0, t - 2), Math.max(0, t - 1), t, t + 1, t + 2,
                2 * t - 1, 2 * t + 1, 4 * t + 3, 16 * t + 1));
        c.capabilities().indirectBytesPerRank().ifPresent(heap -> {
            // beyond one indirect block: the message must go in parts
            sizes.add((int) Math.min(Integer.MAX_VALUE / 2, heap / 2 + 1));
            sizes.add((int) Math.min(Integer.MAX_VALUE / 2, heap + 3));
        });
        return List.copyOf(sizes);
    }

    private static void transparentAroundThreshold(MessagingRuleContext c) {
        List<Integer> sizes = largeSizes(c);
        c.runClean(2, "sizes around the threshold", rank -> {
            Communicator w = rank.comm();
            int peer = 1 - w.rank();
            for (int size : sizes) {
                for (int mode = 0; mode < 2; mode++) {
                    long key = size * 4L + mode * 2;
                    MemorySegment in = MemorySegment.ofArray(new byte[size]);
                    Request r = w.irecv(in, size, BYTE, peer, mode);
                    MemorySegment out = PayloadPattern.of(key + w.rank(), size);
                    if (mode == 0) {
                        w.send(out, size, BYTE, peer, mode);
                    } else {
                        w.ssend(out, size, BYTE, peer, mode);
                    }
                    Status s = r.await();
                    checkEquals((long) size, s.byteCount(), "byte count of a message of " + size + " bytes");
                    long bad = PayloadPattern.firstMismatch(in, key + peer, size);
                    check(bad < 0, "a message of " + size + " bytes (" + (mode == 0 ? "send" : "ssend") + ") arrived with byte "
                            + bad + " wrong");
                }
            }
        });
    }

    private static void smallAfterLargeNotFirst(MessagingRuleContext c) {
        int large = 8 * c.threshold() + 3;
        c.runClean(2, "small after large", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                for (int round = 0; round < 2; round++) {
                    Request a = w.isend(PayloadPattern.of(1, large), large, BYTE, 1, 1);
                    Request b = w.isend(PayloadPattern.of(2, 8), 8, BYTE, 1, 1);
                    Request d = w.isend(PayloadPattern.of(3, 8), 8, BYTE, 1, 2);
                    Request.waitAll(a, b, d);
                }
                return;
            }
            MemorySegment buffer = MemorySegment.ofArray(new byte[large]);
            for (int round = 0; round < 2; round++) {
                int source = round == 0 ? 0 : ANY_SOURCE;
                Status first = w.recv(buffer, large, BYTE, source, ANY_TAG);
                checkEquals((long) large, first.byteCount(), "length of the first message received with ("
                        + (round == 0 ? "0" : "ANY_SOURCE") + ", ANY_TAG): the small one overtook the large one");
                check(PayloadPattern.matches(buffer, 1, large), "the large message arrived damaged");
                Status second = w.recv(buffer, large, BYTE, source, ANY_TAG);
                checkEquals(1, second.tag(), "tag of the second message");
                Status third = w.recv(buffer, large, BYTE, source, ANY_TAG);
                checkEquals(2, third.tag(), "tag of the third message");
            }
        });
    }

    private static void concurrentLargeSendsDoNotInterleave(MessagingRuleContext c) {
        int t = c.threshold();
        int perSender = 4;
        int n = c.largestRanks(3, 8);
        c.runClean(n, "concurrent large sends", rank -> {
            Communicator w = rank.comm();
            if (w.rank() != 0) {
                List<Request> pending = new ArrayList<>();
                for (int i = 0; i < perSender; i++) {
                    int size = 3 * t + 64 * w.rank() + i;
                    pending.add(w.isend(PayloadPattern.of(w.rank() * 100L + i, size), size, BYTE, 0, 0));
                }
                Request.waitAll(pending.toArray(Request[]::new));
                return;
            }
            MemorySegment b = MemorySegment.ofArray(new byte[3 * t + 64 * w.size() + perSender]);
            int[] next = new int[w.size()];
            for (int k = 0; k < perSender * (w.size() - 1); k++) {
                Status s = w.recv(b, b.byteSize(), BYTE, ANY_SOURCE, 0);
                int i = next[s.source()]++;
                checkEquals(3L * t + 64L * s.source() + i, s.byteCount(), "length of message " + i + " of rank " + s.source());
                long bad = PayloadPattern.firstMismatch(b, s.source() * 100L + i, s.byteCount());
                check(bad < 0, "message " + i + " of rank " + s.source() + " has foreign bytes from byte " + bad
                        + " (parts of concurrent large messages interleaved)");
            }
        });
    }

    private static int reclaimMessageSize(MessagingRuleContext c, long heap) {
        long wanted = Math.max(c.threshold() + 1L, Math.min(heap / 8, 64 << 10));
        return (int) Math.min(wanted, Integer.MAX_VALUE / 2);
    }

    private static void reclaimedAfterReceive(MessagingRuleContext c) {
        long heap = c.capabilities().indirectBytesPerRank().orElse(ASSUMED_INDIRECT_BYTES);
        int size = reclaimMessageSize(c, heap);
        int messages = (int) Math.min(MAX_RECLAIM_MESSAGES, RECLAIM_ROUNDS * heap / size + 1);
        c.runClean(2, messages + " large messages through " + heap + " bytes of indirect storage", rank -> {
            Communicator w = rank.comm();
            MemorySegment b = MemorySegment.ofArray(new byte[size]);
            for (int i = 0; i < messages; i++) {
                if (w.rank() == 0) {
                    PayloadPattern.fill(b, i, size);
                    w.send(b, size, BYTE, 1, 0);
                } else {
                    w.recv(b, size, BYTE, 0, 0);
                    if (i % 64 == 0 || i == messages - 1) {
                        check(PayloadPattern.matches(b, i, size), "large message " + i + " arrived damaged");
                    }
                }
            }
        });
    }

    private static void reclaimedAfterTruncationAndCancel(MessagingRuleContext c) {
        long heap = c.capabilities().indirectBytesPerRank().orElse(ASSUMED_INDIRECT_BYTES);
        int size = reclaimMessageSize(c, heap);
        int messages = (int) Math.min(MAX_RECLAIM_MESSAGES, RECLAIM_ROUNDS * heap / size + 1);
        c.runClean(2, messages + " truncated or re-received large messages", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                MemorySegment b = MemorySegment.ofArray(new byte[size]);
                for (int i = 0; i < messages; i++) {
                    PayloadPattern.fill(b, i, size);
                    w.send(b, size, BYTE, 1, i % 2);
                }
                return;
            }
            MemorySegment small = MemorySegment.ofArray(new byte[16]);
            MemorySegment whole = MemorySegment.ofArray(new byte[size]);
            for (int i = 0; i < messages; i++) {
                if (i % 2 == 0) {
                    try {
                        w.recv(small, 16, BYTE, 0, 0);
                        throw new org.lockstep.conformance.RuleViolation("a large message into 16 bytes was not truncated");
                    } catch (TruncationException e) {
                        check(PayloadPattern.matches(small, i, 16), "truncated large message " + i + " has wrong first bytes");
                    }
                } else {
                    Request cancelled = w.irecv(whole, size, BYTE, 0, 99);
                    cancelled.cancel();
                    cancelled.await();
                    w.recv(whole, size, BYTE, 0, 1);
                    if (i % 63 == 1) {
                        check(PayloadPattern.matches(whole, i, size), "large message " + i + " arrived damaged");
                    }
                }
            }
        });
    }

    private static void largeUnexpectedMessages(MessagingRuleContext c) {
        List<Integer> sizes = new ArrayList<>(List.of(c.threshold() + 1, 5 * c.threshold() + 3));
        c.capabilities().indirectBytesPerRank().ifPresent(heap -> sizes.add((int) Math.min(Integer.MAX_VALUE / 2, heap / 2 + 5)));
        c.runClean(2, "large unexpected messages", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                List<Request> pending = new ArrayList<>();
                for (int i = 0; i < sizes.size(); i++) {
                    pending.add(w.isend(PayloadPattern.of(i, sizes.get(i)), sizes.get(i), BYTE, 1, i));
                }
                rank.signal("sent");
                Request.waitAll(pending.toArray(Request[]::new));
                return;
            }
            rank.awaitSignal("sent");
            w.probe(0, 0);
            for (int i = sizes.size() - 1; i >= 0; i--) {
                MemorySegment b = MemorySegment.ofArray(new byte[sizes.get(i)]);
                Status s = w.recv(b, b.byteSize(), BYTE, 0, i);
                checkEquals((long) sizes.get(i), s.byteCount(), "length of unexpected large message " + i);
                long bad = PayloadPattern.firstMismatch(b, i, sizes.get(i));
                check(bad < 0, "unexpected large message " + i + " of " + sizes.get(i) + " bytes has byte " + bad + " wrong");
            }
        });
    }

    private static void largeSynchronousSend(MessagingRuleContext c) {
        int size = 8 * c.threshold() + 5;
        c.runClean(2, "large synchronous send", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                Request r = w.issend(PayloadPattern.of(5, size), size, BYTE, 1, 0);
                for (int i = 0; i < 2_000; i++) {
                    check(r.test().isEmpty(), "an issend of " + size + " bytes completed before its receive was posted");
                }
                rank.signal("checked");
                r.await();
                return;
            }
            rank.awaitSignal("checked");
            MemorySegment b = MemorySegment.ofArray(new byte[size]);
            w.recv(b, size, BYTE, 0, 0);
            check(PayloadPattern.matches(b, 5, size), "the large synchronous message arrived damaged");
        });
    }

    private static void largeAnySource(MessagingRuleContext c) {
        int size = 6 * c.threshold() + 7;
        int n = c.largestRanks(3, 4);
        c.runClean(n, "large ANY_SOURCE", rank -> {
            Communicator w = rank.comm();
            if (w.rank() != 0) {
                w.send(PayloadPattern.of(w.rank(), size), size, BYTE, 0, w.rank());
                return;
            }
            boolean[] seen = new boolean[w.size()];
            MemorySegment b = MemorySegment.ofArray(new byte[size]);
            for (int k = 1; k < w.size(); k++) {
                Status s = w.recv(b, size, BYTE, ANY_SOURCE, ANY_TAG);
                checkEquals(s.source(), s.tag(), "tag (the sender's rank) against source in the status");
                check(!seen[s.source()], "two messages from rank " + s.source());
                seen[s.source()] = true;
                check(PayloadPattern.matches(b, s.source(), size), "the message whose status names rank " + s.source()
                        + " does not hold that rank's bytes");
            }
        });
    }
}
