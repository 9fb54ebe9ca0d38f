package org.lockstep.conformance.scenario;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.conformance.PayloadPattern;
import org.lockstep.conformance.run.LaunchedWorld;
import org.lockstep.conformance.run.RankContext;
import org.lockstep.conformance.run.RunLimits;
import org.lockstep.conformance.run.RunResult;
import org.lockstep.conformance.run.WorldRunner;

/** Runs a {@link Scenario} on a provider and records what each rank saw. */
public final class ScenarioExecution {
    /** Bytes after every receive buffer's capacity that must stay untouched. */
    public static final int GUARD_BYTES = 32;
    /** The value receive buffers are filled with before a receive, to see what it wrote. */
    public static final byte FILL = (byte) 0x5A;

    private ScenarioExecution() {
    }

    /** Runs {@code scenario} on {@code provider} with {@code options} (whose rank count must match). */
    public static ScenarioRecord run(LockstepProvider provider, JobOptions options, RunLimits limits, Scenario scenario) {
        if (options.ranks() != scenario.ranks()) {
            throw new IllegalArgumentException("options for " + options.ranks() + " ranks, scenario of " + scenario.ranks());
        }
        ConcurrentLinkedQueue<ScenarioRecord.SendRecord> sends = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<ScenarioRecord.ReceiveRecord> receives = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<ScenarioRecord.CancelRecord> cancels = new ConcurrentLinkedQueue<>();
        RunResult result = WorldRunner.run(provider, options, limits,
                rank -> new RankRun(scenario, rank, sends, receives, cancels).run());
        if (provider instanceof LaunchedWorld launched) {
            GatheredRecords.Records all = GatheredRecords.allGather(launched, scenario,
                    new GatheredRecords.Records(List.copyOf(sends), List.copyOf(receives), List.copyOf(cancels)));
            return new ScenarioRecord(scenario, List.copyOf(all.sends()), List.copyOf(all.receives()), List.copyOf(all.cancels()), result);
        }
        return new ScenarioRecord(scenario, List.copyOf(sends), List.copyOf(receives), List.copyOf(cancels), result);
    }

    private static final class RankRun {
        private final Scenario scenario;
        private final RankContext context;
        private final Communicator comm;
        private final int me;
        private final ConcurrentLinkedQueue<ScenarioRecord.SendRecord> sendRecords;
        private final ConcurrentLinkedQueue<ScenarioRecord.ReceiveRecord> receiveRecords;
        private final ConcurrentLinkedQueue<ScenarioRecord.CancelRecord> cancelRecords;
        private final List<PendingSend> sends = new ArrayList<>();
        private final Map<Integer, PendingReceive> pending = new HashMap<>();

        private static final class PendingSend {
            final int message;
            final Request request;
            final long start;
            final boolean completedAtOnce;
            long completed = -1;

            PendingSend(int message, Request request, long start, boolean completedAtOnce) {
                this.message = message;
                this.request = request;
                this.start = start;
                this.completedAtOnce = completedAtOnce;
            }
        }

        private record PendingReceive(Step.Receive step, Request request, MemorySegment buffer, long post) {
        }

        RankRun(Scenario scenario, RankContext context, ConcurrentLinkedQueue<ScenarioRecord.SendRecord> sendRecords,
                ConcurrentLinkedQueue<ScenarioRecord.ReceiveRecord> receiveRecords,
                ConcurrentLinkedQueue<ScenarioRecord.CancelRecord> cancelRecords) {
            this.scenario = scenario;
            this.context = context;
            this.comm = context.comm();
            this.me = context.rank();
            this.sendRecords = sendRecords;
            this.receiveRecords = receiveRecords;
            this.cancelRecords = cancelRecords;
        }

        void run() {
            for (Step step : scenario.programs().get(me)) {
                switch (step) {
                    case Step.Send s -> send(scenario.messages().get(s.message()));
                    case Step.Receive r -> receive(r);
                    case Step.Complete c -> complete(c);
                    case Step.CancelUnmatched c -> cancel(c);
                }
                noteCompletedSends();
            }
            for (PendingSend s : sends) {
                s.request.await();
                if (s.completed < 0) {
                    s.completed = System.nanoTime();
                }
                sendRecords.add(new ScenarioRecord.SendRecord(s.message, s.start, s.completed, s.completedAtOnce));
            }
        }

        private void send(Message m) {
            MemorySegment payload = PayloadPattern.of(m.id(), m.bytes());
            long start = System.nanoTime();
            Request r = m.synchronous() ? comm.issend(payload, m.bytes(), Datatype.BYTE, m.dest(), m.tag())
                    : comm.isend(payload, m.bytes(), Datatype.BYTE, m.dest(), m.tag());
            boolean atOnce = m.synchronous() && r.test().isPresent();
            PendingSend p = new PendingSend(m.id(), r, start, atOnce);
            if (atOnce) {
                p.completed = System.nanoTime();
            }
            sends.add(p);
        }

        private void noteCompletedSends() {
            for (PendingSend s : sends) {
                if (s.completed < 0 && s.request.test().isPresent()) {
                    s.completed = System.nanoTime();
                }
            }
        }

        private MemorySegment buffer(int capacity) {
            MemorySegment b = MemorySegment.ofArray(new byte[capacity + GUARD_BYTES]);
            b.fill(FILL);
            return b;
        }

        private void receive(Step.Receive r) {
            MemorySegment buffer = buffer(r.capacity());
            long post = System.nanoTime();
            switch (r.style()) {
                case BLOCKING -> finishBlocking(r, r.spec(), Optional.empty(), buffer, post);
                case IMMEDIATE -> pending.put(r.index(), new PendingReceive(r, comm.irecv(buffer, r.capacity(), Datatype.BYTE,
                        r.spec().source(), r.spec().tag()), buffer, post));
                case PROBE_THEN_RECEIVE -> {
                    Status probed = comm.probe(r.spec().source(), r.spec().tag());
                    finishBlocking(r, new ReceiveSpec(probed.source(), probed.tag()), Optional.of(probed), buffer, post);
                }
                case IPROBE_THEN_RECEIVE -> {
                    Optional<Status> probed;
                    while ((probed = comm.iprobe(r.spec().source(), r.spec().tag())).isEmpty()) {
                        context.checkAborted();
                        Thread.onSpinWait();
                    }
                    finishBlocking(r, new ReceiveSpec(probed.get().source(), probed.get().tag()), probed, buffer, post);
                }
            }
        }

        private void finishBlocking(Step.Receive r, ReceiveSpec spec, Optional<Status> probed, MemorySegment buffer, long post) {
            Status status;
            boolean truncated = false;
            long messageBytes = -1;
            try {
                status = comm.recv(buffer, r.capacity(), Datatype.BYTE, spec.source(), spec.tag());
            } catch (TruncationException e) {
                status = e.status();
                truncated = true;
                messageBytes = e.messageBytes();
            }
            record(r, spec, probed, status, truncated, messageBytes, buffer, post);
        }

        private void record(Step.Receive r, ReceiveSpec spec, Optional<Status> probed, Status status, boolean truncated,
                            long messageBytes, MemorySegment buffer, long post) {
            long done = System.nanoTime();
            long delivered = Math.max(0, Math.min(status.byteCount(), r.capacity()));
            byte[] data = buffer.asSlice(0, delivered).toArray(ValueLayout.JAVA_BYTE);
            long changed = -1;
            for (long i = delivered; i < buffer.byteSize(); i++) {
                if (buffer.get(ValueLayout.JAVA_BYTE, i) != FILL) {
                    changed = i;
                    break;
                }
            }
            receiveRecords.add(new ScenarioRecord.ReceiveRecord(me, r, spec, probed, status, truncated, messageBytes, data,
                    changed, post, done));
        }

        private void complete(Step.Complete c) {
            List<PendingReceive> due = c.receives().stream().map(pending::remove).toList();
            Request[] requests = due.stream().map(PendingReceive::request).toArray(Request[]::new);
            switch (c.how()) {
                case WAIT_EACH -> {
                    for (PendingReceive p : due) {
                        outcome(p, () -> p.request().await());
                    }
                    return;
                }
                case WAIT_ALL -> {
                    try {
                        Request.waitAll(requests);
                    } catch (TruncationException e) {
                        // each request's own outcome is read below
                    }
                }
                case TEST_ALL -> {
                    while (true) {
                        try {
                            if (Request.testAll(requests).isPresent()) {
                                break;
                            }
                        } catch (TruncationException e) {
                            // testAll stops at the first truncated request: test the others too, so they progress
                            testEach(requests);
                            if (allComplete(requests)) {
                                break;
                            }
                        }
                        context.checkAborted();
                        Thread.onSpinWait();
                    }
                }
                case ANY_LOOP -> {
                    boolean[] done = new boolean[requests.length];
                    int left = requests.length;
                    while (left > 0) {
                        for (int i = 0; i < requests.length; i++) {
                            if (done[i]) {
                                continue;
                            }
                            boolean complete;
                            try {
                                complete = requests[i].test().isPresent();
                            } catch (TruncationException e) {
                                complete = true;
                            }
                            if (complete) {
                                done[i] = true;
                                left--;
                            }
                        }
                        context.checkAborted();
                    }
                }
            }
            for (PendingReceive p : due) {
                outcome(p, () -> p.request().test().orElseThrow(() -> new LockstepException(
                        org.lockstep.api.ErrorClass.INTERN, "a request the multi-completion call reported complete is not")));
            }
        }

        private static void testEach(Request[] requests) {
            for (Request r : requests) {
                try {
                    r.test();
                } catch (TruncationException e) {
                    // its outcome is read once all are complete
                }
            }
        }

        private static boolean allComplete(Request[] requests) {
            for (Request r : requests) {
                if (!r.isComplete()) {
                    return false;
                }
            }
            return true;
        }

        private void outcome(PendingReceive p, java.util.function.Supplier<Status> completion) {
            Status status;
            boolean truncated = false;
            long messageBytes = -1;
            try {
                status = completion.get();
            } catch (TruncationException e) {
                status = e.status();
                truncated = true;
                messageBytes = e.messageBytes();
            }
            record(p.step(), p.step().spec(), Optional.empty(), status, truncated, messageBytes, p.buffer(), p.post());
        }

        private void cancel(Step.CancelUnmatched c) {
            Request r = comm.irecv(MemorySegment.ofArray(new byte[8]), 8, Datatype.BYTE, c.spec().source(), c.spec().tag());
            r.cancel();
            try {
                cancelRecords.add(new ScenarioRecord.CancelRecord(me, c.spec(), r.await(), null));
            } catch (LockstepException e) {
                cancelRecords.add(new ScenarioRecord.CancelRecord(me, c.spec(), null, e.getMessage()));
            }
        }
    }
}
