package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.PT2PT;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Message;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * Point-to-point beyond send and receive: persistent requests, matched probes, buffered sends,
 * send-receive in place and partitioned communication (MPI 4.1 §3.6, §3.8.2, §3.9, §3.10, §4).
 */
final class MorePointToPointRules {
    private MorePointToPointRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(PT2PT, 34, REQUIRED, "persistentRequestsReadTheirBufferAtEachStart",
                        "A persistent send and receive (of a vector type too) started twenty times carry the buffer's contents of each"
                                + " start; waiting on an inactive one returns an empty status; starting an active one, or a freed one, is a"
                                + " REQUEST error that leaves the active operation intact.",
                        List.of(standard("§3.9 persistent communication requests"), mpich("pt2pt/persistent.c"), mpich("pt2pt/startall.c")),
                        MorePointToPointRules::persistentRequests),
                messaging(PT2PT, 35, REQUIRED, "matchedProbeTakesItsMessage",
                        "A message taken by mprobe or improbe matches no later probe or receive; mrecv delivers exactly it (truncating if"
                                + " asked to), and receiving it a second time is a REQUEST error.",
                        List.of(standard("§3.8.2 matching probe"), mpich("pt2pt/mprobe.c")), MorePointToPointRules::matchedProbe),
                messaging(PT2PT, 36, REQUIRED, "bufferedSendsUseTheAttachedBuffer",
                        "bsend without an attached buffer, or beyond its room, is a BUFFER error; with one it returns at once and the"
                                + " messages arrive in order; detach waits for them and returns the buffer.",
                        List.of(standard("§3.6 buffer allocation and usage"), mpich("pt2pt/bsend1.c"), mpich("pt2pt/bsendfrag.c")),
                        MorePointToPointRules::bufferedSends),
                messaging(PT2PT, 37, REQUIRED, "sendrecvReplaceShiftsAndReadyModeDelivers",
                        "sendrecv_replace of a vector type around a ring leaves every rank its left neighbour's elements and its gaps"
                                + " untouched; a ready-mode send to a posted receive delivers it.",
                        List.of(standard("§3.10 send-receive"), mpich("pt2pt/sendrecv3.c"), mpich("pt2pt/rsend.c")),
                        MorePointToPointRules::sendrecvReplaceAndReady),
                messaging(PT2PT, 38, REQUIRED, "partitionedPartsArriveWhenReady",
                        "A partitioned send whose parts are marked ready in reverse order, after each part is written, delivers every"
                                + " part's contents of that moment; parrived turns true for each part, and both sides restart.",
                        List.of(standard("§4 partitioned point-to-point communication"), mpich("part/sendrecv_part.c")),
                        MorePointToPointRules::partitioned),
                messaging(PT2PT, 39, REQUIRED, "persistentSendsOfEveryModeAndImrecv",
                        "A persistent synchronous send does not complete at any start before its receive is posted, a persistent"
                                + " buffered send completes at each start before it is received, a persistent ready send to a posted receive"
                                + " delivers it; imrecv of a matched message delivers exactly it, and a second imrecv of it is a REQUEST error.",
                        List.of(standard("§3.9 persistent communication requests: MPI_Ssend_init, MPI_Bsend_init, MPI_Rsend_init"),
                                standard("§3.8.3 matched receives"), mpich("pt2pt/mprobe.c")),
                        MorePointToPointRules::everyModePersistent));
    }

    /** Polls of a request that must stay pending (as PT2PT.15's issend). */
    private static final int STILL_PENDING_POLLS = 2_000;

    private static void everyModePersistent(MessagingRuleContext c) {
        c.runClean(2, "persistent sends of every mode, and imrecv", rank -> {
            Communicator w = rank.comm();
            int starts = 3;
            int[] data = new int[2];
            MemorySegment buffer = MemorySegment.ofArray(data);
            if (w.rank() == 0) {
                PersistentRequest synchronous = w.ssendInit(buffer, 2, Datatype.INT, 1, 40);
                w.attachBuffer(MemorySegment.ofArray(new byte[1024]));
                PersistentRequest buffered = w.bsendInit(buffer, 2, Datatype.INT, 1, 41);
                PersistentRequest ready = w.rsendInit(buffer, 2, Datatype.INT, 1, 42);
                for (int k = 0; k < starts; k++) {
                    data[0] = 10 * k;
                    data[1] = 10 * k + 1;
                    synchronous.start();
                    for (int i = 0; i < STILL_PENDING_POLLS; i++) {
                        check(synchronous.test().isEmpty(), "a persistent ssend (start " + k + ") completed before its receive was posted");
                    }
                    rank.signal("ssend checked " + k);
                    synchronous.await();
                    data[0] = 10 * k + 2;
                    buffered.start();
                    buffered.await(); // locally: the receive is posted only after the signal below
                    data[0] = -1; // the buffered copy was taken at start
                    rank.signal("bsend done " + k);
                    rank.awaitSignal("rsend posted " + k);
                    data[0] = 10 * k + 3;
                    ready.start();
                    ready.await();
                }
                w.detachBuffer();
                synchronous.free();
                buffered.free();
                ready.free();
                w.send(MemorySegment.ofArray(new int[] {7, 8}), 2, Datatype.INT, 1, 43);
            } else {
                int[] got = new int[2];
                MemorySegment into = MemorySegment.ofArray(got);
                for (int k = 0; k < starts; k++) {
                    rank.awaitSignal("ssend checked " + k);
                    w.recv(into, 2, Datatype.INT, 0, 40);
                    checkEquals(10 * k, got[0], "persistent ssend, start " + k);
                    rank.awaitSignal("bsend done " + k);
                    w.recv(into, 2, Datatype.INT, 0, 41);
                    checkEquals(10 * k + 2, got[0], "persistent bsend, start " + k + " (the buffer's contents at its start)");
                    Request posted = w.irecv(into, 2, Datatype.INT, 0, 42);
                    rank.signal("rsend posted " + k);
                    posted.await();
                    checkEquals(10 * k + 3, got[0], "persistent rsend, start " + k);
                }
                Message m = w.mprobe(0, 43);
                Status s = w.imrecv(into, 2, Datatype.INT, m).await();
                checkEquals(7, got[0], "imrecv of the matched message");
                checkEquals(0, s.source(), "source of imrecv");
                expectError(ErrorClass.REQUEST, "a second imrecv of one matched message",
                        () -> w.imrecv(into, 2, Datatype.INT, m).await());
            }
        });
    }

    private static void persistentRequests(MessagingRuleContext c) {
        c.runClean(2, "persistent send and receive", rank -> {
            Communicator w = rank.comm();
            Datatype every2 = Datatype.vector(4, 1, 2, Datatype.LONG).commit();
            long[] data = new long[8];
            MemorySegment buffer = MemorySegment.ofArray(data);
            int rounds = 20;
            if (w.rank() == 0) {
                PersistentRequest plain = w.sendInit(buffer, 8, Datatype.LONG, 1, 5);
                PersistentRequest strided = w.sendInit(buffer, 1, every2, 1, 6);
                checkEquals(Status.empty(), plain.await(), "wait on a persistent send never started");
                for (int k = 0; k < rounds; k++) {
                    for (int i = 0; i < 8; i++) {
                        data[i] = 100L * k + i;
                    }
                    PersistentRequest.startAll(plain, strided);
                    if (k == 3) {
                        expectError(ErrorClass.REQUEST, "starting an active persistent send", plain::start);
                    }
                    Request.waitAll(plain, strided);
                }
                plain.free();
                expectError(ErrorClass.REQUEST, "starting a freed persistent send", plain::start);
            } else {
                long[] got = new long[8];
                long[] gotStrided = new long[8];
                PersistentRequest plain = w.recvInit(MemorySegment.ofArray(got), 8, Datatype.LONG, 0, 5);
                PersistentRequest strided = w.recvInit(MemorySegment.ofArray(gotStrided), 1, every2, 0, 6);
                for (int k = 0; k < rounds; k++) {
                    java.util.Arrays.fill(gotStrided, -1);
                    plain.start();
                    strided.start();
                    Status s = plain.await();
                    strided.await();
                    checkEquals(64L, s.byteCount(), "bytes of persistent receive " + k);
                    check(!plain.isActive(), "a completed persistent receive is still active");
                    for (int i = 0; i < 8; i++) {
                        checkEquals(100L * k + i, got[i], "start " + k + " element " + i + " of the persistent send");
                        checkEquals(i % 2 == 0 ? 100L * k + i : -1L, gotStrided[i], "start " + k + " element " + i
                                + " of the persistent vector send");
                    }
                }
            }
        });
    }

    private static void matchedProbe(MessagingRuleContext c) {
        c.runClean(2, "matched probes", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                for (int k = 1; k <= 3; k++) {
                    w.send(new int[] {k, k, k}, 1, 9);
                }
            } else {
                Message first = w.mprobe(0, 9);
                checkEquals(12L, first.status().byteCount(), "length of the probed message");
                // the first message is out of matching: a probe and a receive now see the second
                Status next = w.probe(0, 9);
                check(next.byteCount() == 12, "probe after mprobe");
                int[] second = new int[3];
                w.recv(second, 0, 9);
                checkEquals(2, second[0], "a receive after mprobe took the probed message instead of the next one");
                int[] got = new int[3];
                Status s = w.mrecv(MemorySegment.ofArray(got), 3, Datatype.INT, first);
                checkEquals(1, got[0], "mrecv delivered another message than the one probed");
                checkEquals(0, s.source(), "source of mrecv");
                expectError(ErrorClass.REQUEST, "receiving a matched message twice",
                        () -> w.mrecv(MemorySegment.ofArray(got), 3, Datatype.INT, first));
                Optional<Message> third;
                do {
                    third = w.improbe(0, 9);
                } while (third.isEmpty());
                int[] two = new int[2];
                try {
                    w.mrecv(MemorySegment.ofArray(two), 2, Datatype.INT, third.get());
                    throw new org.lockstep.conformance.RuleViolation("mrecv of 3 ints into 2 was not truncated");
                } catch (org.lockstep.api.TruncationException e) {
                    checkEquals(3, two[0], "a truncated mrecv keeps the first part");
                }
                checkEquals(Message.NO_PROC, w.mprobe(Communicator.PROC_NULL, 0), "mprobe of PROC_NULL");
            }
        });
    }

    private static void bufferedSends(MessagingRuleContext c) {
        c.runClean(2, "buffered sends", rank -> {
            Communicator w = rank.comm();
            if (w.rank() == 0) {
                expectError(ErrorClass.BUFFER, "bsend without an attached buffer", () -> w.bsend(MemorySegment.ofArray(new int[] {1}), 1, Datatype.INT, 1, 2));
                MemorySegment attached = MemorySegment.ofArray(new byte[4 * 64]);
                w.attachBuffer(attached);
                for (int k = 0; k < 4; k++) {
                    int[] msg = new int[16];
                    java.util.Arrays.fill(msg, k);
                    w.bsend(MemorySegment.ofArray(msg), 16, Datatype.INT, 1, 3);
                }
                expectError(ErrorClass.BUFFER, "a bsend larger than the attached buffer",
                        () -> w.bsend(MemorySegment.ofArray(new int[65]), 65, Datatype.INT, 1, 3));
                rank.signal("four sent");
                check(w.detachBuffer() == attached, "detach returned another buffer than the one attached");
            } else {
                rank.awaitSignal("four sent");
                for (int k = 0; k < 4; k++) {
                    int[] got = new int[16];
                    w.recv(got, 0, 3);
                    checkEquals(k, got[15], "buffered message " + k);
                }
            }
        });
    }

    private static void sendrecvReplaceAndReady(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "sendrecv_replace around a ring", rank -> {
                Communicator w = rank.comm();
                int me = w.rank();
                int right = (me + 1) % w.size();
                int left = (me + w.size() - 1) % w.size();
                Datatype pairs = Datatype.vector(3, 2, 3, Datatype.INT).commit(); // 2 of every 3 ints
                int[] b = new int[9];
                for (int i = 0; i < 9; i++) {
                    b[i] = i % 3 == 2 ? -5 : 10 * me + i;
                }
                w.sendrecvReplace(MemorySegment.ofArray(b), 1, pairs, right, 4, left, 4);
                for (int i = 0; i < 9; i++) {
                    checkEquals(i % 3 == 2 ? -5 : 10 * left + i, b[i], "element " + i + " on rank " + me + " after sendrecv_replace");
                }
                int[] in = new int[1];
                Request r = w.irecv(in, left, 8);
                w.barrier(); // every receive is posted before any ready-mode send
                w.rsend(MemorySegment.ofArray(new int[] {me}), 1, Datatype.INT, right, 8);
                r.await();
                checkEquals(left, in[0], "ready-mode message on rank " + me);
            });
        }
    }

    private static void partitioned(MessagingRuleContext c) {
        c.runClean(2, "partitioned send and receive", rank -> {
            Communicator w = rank.comm();
            int parts = 4;
            int per = 8;
            long[] buffer = new long[parts * per];
            MemorySegment segment = MemorySegment.ofArray(buffer);
            for (int round = 0; round < 3; round++) {
                if (w.rank() == 0) {
                    PartitionedRequest send = w.psendInit(segment, parts, per, Datatype.LONG, 1, 11);
                    send.start();
                    rank.signal("started " + round);
                    for (int p = parts - 1; p >= 0; p--) {
                        for (int i = 0; i < per; i++) {
                            buffer[p * per + i] = 1000L * round + 10L * p + i; // written after start, before pready
                        }
                        send.pready(p);
                    }
                    send.await();
                    send.free();
                } else {
                    PartitionedRequest recv = w.precvInit(segment, parts, per, Datatype.LONG, 0, 11);
                    java.util.Arrays.fill(buffer, -1);
                    recv.start();
                    rank.awaitSignal("started " + round);
                    boolean[] seen = new boolean[parts];
                    int arrived = 0;
                    while (arrived < parts) {
                        for (int p = 0; p < parts; p++) {
                            if (!seen[p] && recv.parrived(p)) {
                                seen[p] = true;
                                arrived++;
                            }
                        }
                    }
                    recv.await();
                    for (int p = 0; p < parts; p++) {
                        for (int i = 0; i < per; i++) {
                            checkEquals(1000L * round + 10L * p + i, buffer[p * per + i], "round " + round + " part " + p + " element " + i);
                        }
                    }
                    recv.free();
                }
            }
        });
    }
}
