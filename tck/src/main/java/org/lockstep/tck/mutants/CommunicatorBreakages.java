package org.lockstep.tck.mutants;

import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;
import static org.lockstep.api.Communicator.PROC_NULL;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

/**
 * Breakages of a provider's communicator, each a plausible transport bug. Each class declares
 * only the calls it breaks; everything else reaches the real communicator unchanged.
 */
final class CommunicatorBreakages {
    private CommunicatorBreakages() {
    }

    private static int peerIndex(int peer) {
        return peer < 0 ? -1 : peer;
    }

    /** Loses the second message each rank sends to each destination. */
    static final class DropMessage {
        private final Communicator real;
        private final int[] sent;

        DropMessage(Communicator real) {
            this.real = real;
            this.sent = new int[real.size()];
        }

        private boolean drop(int dest) {
            return peerIndex(dest) >= 0 && ++sent[dest] == 2;
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return drop(dest) ? new Requests.Completed(Status.of(dest, tag, type.byteLength(count))) : real.isend(b, count, type, dest, tag);
        }

        public Request issend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return drop(dest) ? new Requests.Completed(Status.of(dest, tag, type.byteLength(count))) : real.issend(b, count, type, dest, tag);
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            if (!drop(dest)) {
                real.send(b, count, type, dest, tag);
            }
        }

        public void ssend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            if (!drop(dest)) {
                real.ssend(b, count, type, dest, tag);
            }
        }
    }

    /**
     * Holds back the second message to each destination (any send mode) and starts it right after
     * the third; it is also released before the rank blocks (a blocking receive or probe, or a wait),
     * so that the breakage reorders rather than deadlocks.
     */
    static final class ReorderTwo {
        private final Communicator real;
        private final int[] sent;
        private final Requests.Deferred[] held;

        ReorderTwo(Communicator real) {
            this.real = real;
            this.sent = new int[real.size()];
            this.held = new Requests.Deferred[real.size()];
        }

        void flush() {
            for (int i = 0; i < held.length; i++) {
                if (held[i] != null) {
                    Requests.Deferred d = held[i];
                    held[i] = null;
                    d.start();
                }
            }
        }

        private Request start(MemorySegment b, long count, Datatype type, int dest, int tag, boolean synchronous) {
            int i = peerIndex(dest);
            int n = i < 0 ? 0 : ++sent[i];
            if (n == 2) {
                MemorySegment copy = MemorySegment.ofArray(b.asSlice(0, type.byteLength(count)).toArray(ValueLayout.JAVA_BYTE));
                Requests.Deferred d = new Requests.Deferred(() -> synchronous ? real.issend(copy, count, type, dest, tag)
                        : real.isend(copy, count, type, dest, tag), this::flush);
                held[i] = d;
                return d;
            }
            Request r = synchronous ? real.issend(b, count, type, dest, tag) : real.isend(b, count, type, dest, tag);
            if (n == 3 && held[i] != null) {
                Requests.Deferred d = held[i];
                held[i] = null;
                d.start();
            }
            return RequestBreakages.broken(r, new RequestBreakages.FlushWhenWaiting(r, this::flush));
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = real.irecv(b, count, type, source, tag);
            return RequestBreakages.broken(r, new RequestBreakages.FlushWhenWaiting(r, this::flush));
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return start(b, count, type, dest, tag, false);
        }

        public Request issend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return start(b, count, type, dest, tag, true);
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            Request r = start(b, count, type, dest, tag, false);
            if (!(r instanceof Requests.Deferred)) {
                r.await();
            }
        }

        public void ssend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            Request r = start(b, count, type, dest, tag, true);
            flush();
            r.await();
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            flush();
            return real.recv(b, count, type, source, tag);
        }

        public Status probe(int source, int tag) {
            flush();
            return real.probe(source, tag);
        }

        public void close() {
            flush();
            real.close();
        }
    }

    /** Sends the second standard-mode message to each destination twice. */
    static final class DuplicateOne {
        private final Communicator real;
        private final int[] sent;

        DuplicateOne(Communicator real) {
            this.real = real;
            this.sent = new int[real.size()];
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            Request first = real.isend(b, count, type, dest, tag);
            if (peerIndex(dest) >= 0 && ++sent[dest] == 2) {
                return new Requests.Both(first, real.isend(b, count, type, dest, tag));
            }
            return first;
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            isend(b, count, type, dest, tag).await();
        }
    }

    /**
     * Simulates a transport that never reclaims indirect storage: once a rank has sent as many
     * bytes above the threshold as its indirect storage holds, its large sends never complete.
     */
    static final class NeverReclaims {
        private final Communicator real;
        private final long threshold;
        private final long storage;
        private long used;

        NeverReclaims(Communicator real, long threshold, long storage) {
            this.real = real;
            this.threshold = threshold;
            this.storage = storage;
        }

        private boolean exhausted(long bytes) {
            if (bytes <= threshold) {
                return false;
            }
            used += bytes;
            return used > storage;
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return exhausted(type.byteLength(count)) ? new Requests.Never() : real.isend(b, count, type, dest, tag);
        }

        public Request issend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return exhausted(type.byteLength(count)) ? new Requests.Never() : real.issend(b, count, type, dest, tag);
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            isend(b, count, type, dest, tag).await();
        }

        public void ssend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            issend(b, count, type, dest, tag).await();
        }
    }

    /** Wildcard-source receives and probes report the next rank as the source. */
    static final class WrongStatusSource {
        private final Communicator real;

        WrongStatusSource(Communicator real) {
            this.real = real;
        }

        private Status wrong(Status s) {
            return s.source() < 0 ? s : new Status((s.source() + 1) % real.size(), s.tag(), s.byteCount(), s.cancelled(), s.error());
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Status s = real.recv(b, count, type, source, tag);
            return source == ANY_SOURCE ? wrong(s) : s;
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = real.irecv(b, count, type, source, tag);
            return source == ANY_SOURCE ? RequestBreakages.broken(r, new RequestBreakages.MapStatus(r, this::wrong)) : r;
        }

        public Status probe(int source, int tag) {
            Status s = real.probe(source, tag);
            return source == ANY_SOURCE ? wrong(s) : s;
        }

        public Optional<Status> iprobe(int source, int tag) {
            Optional<Status> s = real.iprobe(source, tag);
            return source == ANY_SOURCE ? s.map(this::wrong) : s;
        }
    }

    /** Wildcard-tag receives and probes report tag 0. */
    static final class WrongStatusTag {
        private final Communicator real;

        WrongStatusTag(Communicator real) {
            this.real = real;
        }

        private static Status wrong(Status s) {
            return s.source() == PROC_NULL ? s : new Status(s.source(), 0, s.byteCount(), s.cancelled(), s.error());
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Status s = real.recv(b, count, type, source, tag);
            return tag == ANY_TAG ? wrong(s) : s;
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = real.irecv(b, count, type, source, tag);
            return tag == ANY_TAG ? RequestBreakages.broken(r, new RequestBreakages.MapStatus(r, WrongStatusTag::wrong)) : r;
        }

        public Status probe(int source, int tag) {
            Status s = real.probe(source, tag);
            return tag == ANY_TAG ? wrong(s) : s;
        }

        public Optional<Status> iprobe(int source, int tag) {
            Optional<Status> s = real.iprobe(source, tag);
            return tag == ANY_TAG ? s.map(WrongStatusTag::wrong) : s;
        }
    }

    /** Synchronous sends behave as standard-mode sends. */
    static final class SsendAsSend {
        private final Communicator real;

        SsendAsSend(Communicator real) {
            this.real = real;
        }

        public Request issend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return real.isend(b, count, type, dest, tag);
        }

        public void ssend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            real.send(b, count, type, dest, tag);
        }
    }

    /** A probe that finds a message receives it. */
    static final class ProbeConsumes {
        private final Communicator real;

        ProbeConsumes(Communicator real) {
            this.real = real;
        }

        private Status consume(Status s) {
            if (s.source() >= 0) {
                MemorySegment scratch = MemorySegment.ofArray(new byte[(int) Math.max(1, s.byteCount())]);
                real.recv(scratch, s.byteCount(), Datatype.BYTE, s.source(), s.tag());
            }
            return s;
        }

        public Optional<Status> iprobe(int source, int tag) {
            return real.iprobe(source, tag).map(this::consume);
        }

        public Status probe(int source, int tag) {
            return consume(real.probe(source, tag));
        }
    }

    /** A blocking probe sees only what is there when it starts: a lost wake-up. */
    static final class ProbeNeverWakes {
        private final Communicator real;

        ProbeNeverWakes(Communicator real) {
            this.real = real;
        }

        public Status probe(int source, int tag) {
            Optional<Status> now = real.iprobe(source, tag);
            if (now.isPresent()) {
                return now.get();
            }
            Requests.parkUntilInterrupted("a probe that missed its wake-up");
            throw new IllegalStateException("unreachable");
        }
    }

    /** Truncated receives complete as if nothing were wrong. */
    static final class TruncationIgnored {
        private final Communicator real;

        TruncationIgnored(Communicator real) {
            this.real = real;
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            try {
                return real.recv(b, count, type, source, tag);
            } catch (TruncationException e) {
                return RequestBreakages.SwallowTruncation.untruncated(e.status());
            }
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = real.irecv(b, count, type, source, tag);
            return RequestBreakages.broken(r, new RequestBreakages.SwallowTruncation(r));
        }
    }

    /** Argument errors all come out as ARG. */
    static final class WrongErrorClass {
        private static final Set<ErrorClass> ARGUMENT_CLASSES = Set.of(ErrorClass.RANK, ErrorClass.TAG, ErrorClass.COUNT,
                ErrorClass.TYPE, ErrorClass.BUFFER, ErrorClass.COMM);
        private final Communicator real;

        WrongErrorClass(Communicator real) {
            this.real = real;
        }

        private static LockstepException reclassify(LockstepException e) {
            return ARGUMENT_CLASSES.contains(e.errorClass()) ? new LockstepException(ErrorClass.ARG, e.getMessage(), e) : e;
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            try {
                real.send(b, count, type, dest, tag);
            } catch (LockstepException e) {
                throw reclassify(e);
            }
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            try {
                return real.isend(b, count, type, dest, tag);
            } catch (LockstepException e) {
                throw reclassify(e);
            }
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            try {
                return real.irecv(b, count, type, source, tag);
            } catch (LockstepException e) {
                throw reclassify(e);
            }
        }

        public Status probe(int source, int tag) {
            try {
                return real.probe(source, tag);
            } catch (LockstepException e) {
                throw reclassify(e);
            }
        }

        public Optional<Status> iprobe(int source, int tag) {
            try {
                return real.iprobe(source, tag);
            } catch (LockstepException e) {
                throw reclassify(e);
            }
        }
    }

    /** Receive requests with a breakage of their own. */
    static final class BrokenReceiveRequests {
        private final Communicator real;
        private final java.util.function.BiFunction<Request, Status, Object> breakage;

        BrokenReceiveRequests(Communicator real, java.util.function.BiFunction<Request, Status, Object> breakage) {
            this.real = real;
            this.breakage = breakage;
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = real.irecv(b, count, type, source, tag);
            Status made = Status.of(source < 0 ? 0 : source, tag < 0 ? 0 : tag, 0);
            return RequestBreakages.broken(r, breakage.apply(r, made));
        }
    }

    /** Statuses report the receive buffer's capacity as the byte count. */
    static final class ByteCountOff {
        private final Communicator real;

        ByteCountOff(Communicator real) {
            this.real = real;
        }

        private static Status off(Status s, long capacity) {
            return s.source() < 0 || s.error() != null ? s : new Status(s.source(), s.tag(), capacity, s.cancelled(), s.error());
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            return off(real.recv(b, count, type, source, tag), type.byteLength(count));
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = real.irecv(b, count, type, source, tag);
            long capacity = type.byteLength(count);
            return RequestBreakages.broken(r, new RequestBreakages.MapStatus(r, s -> off(s, capacity)));
        }
    }

    /** Receives and probes from PROC_NULL are taken as ANY_SOURCE. */
    static final class ProcNullAsAnySource {
        private final Communicator real;

        ProcNullAsAnySource(Communicator real) {
            this.real = real;
        }

        private static int wild(int source) {
            return source == PROC_NULL ? ANY_SOURCE : source;
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            return real.recv(b, count, type, wild(source), tag);
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            return real.irecv(b, count, type, wild(source), tag);
        }

        public Optional<Status> iprobe(int source, int tag) {
            return real.iprobe(wild(source), tag);
        }
    }

    /** Receives and probes ignore the tag asked for. */
    static final class TagIgnored {
        private final Communicator real;

        TagIgnored(Communicator real) {
            this.real = real;
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            return real.recv(b, count, type, source, ANY_TAG);
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            return real.irecv(b, count, type, source, ANY_TAG);
        }

        public Status probe(int source, int tag) {
            return real.probe(source, ANY_TAG);
        }

        public Optional<Status> iprobe(int source, int tag) {
            return real.iprobe(source, ANY_TAG);
        }
    }

    /** Every second non-blocking receive is posted only after the next one. */
    static final class LaterPostedWins {
        private final Communicator real;
        private final List<Requests.Deferred> held = new ArrayList<>();
        private int posted;

        LaterPostedWins(Communicator real) {
            this.real = real;
        }

        void flush() {
            for (Requests.Deferred d : List.copyOf(held)) {
                d.start();
            }
            held.clear();
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            if (++posted % 2 == 0) {
                Requests.Deferred d = new Requests.Deferred(() -> real.irecv(b, count, type, source, tag), this::flush);
                held.add(d);
                return d;
            }
            Request r = real.irecv(b, count, type, source, tag);
            flush();
            return r;
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            flush();
            return real.recv(b, count, type, source, tag);
        }

        public Optional<Status> iprobe(int source, int tag) {
            flush();
            return real.iprobe(source, tag);
        }

        public Status probe(int source, int tag) {
            flush();
            return real.probe(source, tag);
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            flush();
            return real.isend(b, count, type, dest, tag);
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            flush();
            real.send(b, count, type, dest, tag);
        }
    }

    /** A receive writes one byte past the message it delivers. */
    static final class OverwritesPastMessage {
        private final Communicator real;

        OverwritesPastMessage(Communicator real) {
            this.real = real;
        }

        private static void spoil(MemorySegment b, Status s) {
            if (s.source() >= 0 && !b.isReadOnly() && b.byteSize() > s.byteCount()) {
                b.set(ValueLayout.JAVA_BYTE, s.byteCount(), (byte) ~b.get(ValueLayout.JAVA_BYTE, s.byteCount()));
            }
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            try {
                Status s = real.recv(b, count, type, source, tag);
                spoil(b, s);
                return s;
            } catch (TruncationException e) {
                spoil(b, e.status());
                throw e;
            }
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = real.irecv(b, count, type, source, tag);
            return RequestBreakages.broken(r, new RequestBreakages.OnCompletion(r, s -> spoil(b, s)));
        }
    }

    /** close() does nothing. */
    static final class CloseIgnored {
        CloseIgnored(Communicator real) {
        }

        public void close() {
            // the breakage: the communicator stays usable
        }
    }

    /** Tags are cut to 16 bits on the way out (a header field too narrow). */
    static final class TagTruncated {
        private static final int KEPT = 0xFFFF;
        private final Communicator real;

        TagTruncated(Communicator real) {
            this.real = real;
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return real.isend(b, count, type, dest, tag & KEPT);
        }

        public Request issend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return real.issend(b, count, type, dest, tag & KEPT);
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            real.send(b, count, type, dest, tag & KEPT);
        }

        public void ssend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            real.ssend(b, count, type, dest, tag & KEPT);
        }
    }

    /** Elements wider than a byte are sent byte-reversed (a conversion applied on one side only). */
    static final class EndianSwap {
        private final Communicator real;

        EndianSwap(Communicator real) {
            this.real = real;
        }

        private static MemorySegment swapped(MemorySegment b, long count, Datatype type) {
            long size = type.valueType().size();
            long bytes = type.byteLength(count);
            MemorySegment copy = MemorySegment.ofArray(new byte[(int) bytes]);
            MemorySegment.copy(b, 0, copy, 0, bytes);
            if (size > 1 && type.kind() != Datatype.Kind.PAIR) {
                for (long e = 0; e + size <= bytes; e += size) {
                    for (long i = 0; i < size / 2; i++) {
                        byte x = copy.get(ValueLayout.JAVA_BYTE, e + i);
                        copy.set(ValueLayout.JAVA_BYTE, e + i, copy.get(ValueLayout.JAVA_BYTE, e + size - 1 - i));
                        copy.set(ValueLayout.JAVA_BYTE, e + size - 1 - i, x);
                    }
                }
            }
            return copy;
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return real.isend(swapped(b, count, type), count, type, dest, tag);
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            real.send(swapped(b, count, type), count, type, dest, tag);
        }
    }

    /** allocate hands out one byte less than asked for. */
    static final class ShortAllocation {
        private final Communicator real;

        ShortAllocation(Communicator real) {
            this.real = real;
        }

        public MemorySegment allocate(long byteSize) {
            MemorySegment s = real.allocate(byteSize);
            return byteSize > 0 ? s.asSlice(0, byteSize - 1) : s;
        }

        public void free(MemorySegment segment) {
            // the short slice is not what was allocated; the real one is released with the communicator
        }
    }

    /** isend blocks while more than a few of its sends are still pending (an isend that waits for room). */
    static final class BlockingIsend {
        private static final int ROOM = 8;
        private final Communicator real;
        private final List<Request> pending = new ArrayList<>();

        BlockingIsend(Communicator real) {
            this.real = real;
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            Request r = real.isend(b, count, type, dest, tag);
            pending.add(r);
            while (true) {
                pending.removeIf(p -> p.test().isPresent());
                if (pending.size() <= ROOM) {
                    return r;
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new LockstepException(ErrorClass.OTHER, "interrupted while isend waited for room");
                }
                Thread.onSpinWait();
            }
        }
    }

    // ---------------------------------------------------------------- collectives

    /** The last rank's barrier returns at once, without waiting for the others. */
    static final class BarrierReturnsEarly {
        private final Communicator real;

        BarrierReturnsEarly(Communicator real) {
            this.real = real;
        }

        public void barrier() {
            if (real.rank() != real.size() - 1) {
                real.barrier();
            }
        }
    }

    /** A broadcast leaves the rank after the root with what its buffer held before. */
    static final class BcastSkipsOneRank {
        private final Communicator real;

        BcastSkipsOneRank(Communicator real) {
            this.real = real;
        }

        public void bcast(MemorySegment buffer, long count, Datatype type, int root) {
            long bytes = type.byteLength(count);
            boolean skipped = real.size() > 1 && real.rank() == (root + 1) % real.size();
            MemorySegment before = skipped ? MemorySegment.ofArray(buffer.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE)) : null;
            real.bcast(buffer, count, type, root);
            if (skipped) {
                MemorySegment.copy(before, 0, buffer, 0, bytes);
            }
        }
    }

    /** Non-commutative reductions combine their operands the wrong way round ({@code inout op in}). */
    static final class ReductionWrongOrder {
        private final Communicator real;

        ReductionWrongOrder(Communicator real) {
            this.real = real;
        }

        private static org.lockstep.api.Op swapped(org.lockstep.api.Op op) {
            if (op.isCommutative()) {
                return op;
            }
            return org.lockstep.api.Op.create((in, inout, count, type) -> {
                long bytes = type.byteLength(count);
                MemorySegment result = MemorySegment.ofArray(in.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE));
                op.apply(inout, result, count, type);
                MemorySegment.copy(result, 0, inout, 0, bytes);
            }, false);
        }

        public void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, org.lockstep.api.Op op, int root) {
            real.reduce(send, recv, count, type, swapped(op), root);
        }

        public void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, org.lockstep.api.Op op) {
            real.allreduce(send, recv, count, type, swapped(op));
        }

        public void scan(MemorySegment send, MemorySegment recv, long count, Datatype type, org.lockstep.api.Op op) {
            real.scan(send, recv, count, type, swapped(op));
        }
    }

    /** The last rank's allreduce of doubles differs in the lowest bit of its first element (another order of additions). */
    static final class AllreduceNotBitIdentical {
        private final Communicator real;

        AllreduceNotBitIdentical(Communicator real) {
            this.real = real;
        }

        public void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, org.lockstep.api.Op op) {
            real.allreduce(send, recv, count, type, op);
            if (type == Datatype.DOUBLE && count > 0 && real.size() > 1 && real.rank() == real.size() - 1) {
                long bits = recv.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                recv.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, bits ^ 1);
            }
        }
    }

    /** split gives communicators whose point-to-point messages travel in the parent's context. */
    static final class SplitMixesContexts {
        private final Communicator real;

        SplitMixesContexts(Communicator real) {
            this.real = real;
        }

        public Communicator split(int color, int key) {
            Communicator part = real.split(color, key);
            if (part == null) {
                return null;
            }
            int[] parentRanks = new int[part.size()];
            part.allgather(MemorySegment.ofArray(new int[] {real.rank()}), 1, Datatype.INT, MemorySegment.ofArray(parentRanks));
            return Forwarders.forward(Communicator.class, part, new InParentContext(real, parentRanks));
        }
    }

    /** The point-to-point calls of a split communicator, sent and received on its parent. */
    static final class InParentContext {
        private final Communicator parent;
        private final int[] parentRanks;

        InParentContext(Communicator parent, int[] parentRanks) {
            this.parent = parent;
            this.parentRanks = parentRanks;
        }

        private int toParent(int rank) {
            return rank < 0 ? rank : parentRanks[rank];
        }

        private Status fromParent(Status s) {
            for (int i = 0; i < parentRanks.length; i++) {
                if (parentRanks[i] == s.source()) {
                    return new Status(i, s.tag(), s.byteCount(), s.cancelled(), s.error());
                }
            }
            return s;
        }

        public void send(MemorySegment b, long count, Datatype type, int dest, int tag) {
            parent.send(b, count, type, toParent(dest), tag);
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return parent.isend(b, count, type, toParent(dest), tag);
        }

        public Status recv(MemorySegment b, long count, Datatype type, int source, int tag) {
            return fromParent(parent.recv(b, count, type, toParent(source), tag));
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = parent.irecv(b, count, type, toParent(source), tag);
            return RequestBreakages.broken(r, new RequestBreakages.MapStatus(r, this::fromParent));
        }
    }

    /** Rank 0's alltoall delivers its first two received blocks swapped. */
    static final class AlltoallBlocksSwapped {
        private final Communicator real;

        AlltoallBlocksSwapped(Communicator real) {
            this.real = real;
        }

        public void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
            real.alltoall(send, count, type, recv);
            long block = type.byteLength(count);
            if (real.rank() == 0 && real.size() > 1 && block > 0) {
                byte[] first = recv.asSlice(0, block).toArray(ValueLayout.JAVA_BYTE);
                MemorySegment.copy(recv, block, recv, 0, block);
                MemorySegment.copy(MemorySegment.ofArray(first), 0, recv, block, block);
            }
        }
    }
}
