package org.lockstep.tck.mutants;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Message;
import org.lockstep.api.Op;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/** Breakages of the calls beyond send, receive and the first collectives: each a plausible provider bug. */
final class ApiBreakages {
    private ApiBreakages() {
    }

    private static MemorySegment copyOf(MemorySegment buffer) {
        return buffer == null ? null : MemorySegment.ofArray(buffer.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    /** A persistent send reads its buffer once, when it is made, instead of at each start. */
    static final class PersistentSendCopiesAtInit {
        private final Communicator real;

        PersistentSendCopiesAtInit(Communicator real) {
            this.real = real;
        }

        public PersistentRequest sendInit(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return real.sendInit(copyOf(b), count, type, dest, tag);
        }
    }

    /** A matched probe only probes: the message stays in matching until mrecv receives it by source and tag. */
    static final class MprobeLeavesMessage {
        private final Communicator real;

        MprobeLeavesMessage(Communicator real) {
            this.real = real;
        }

        private record Left(Status status) implements Message {
        }

        public Message mprobe(int source, int tag) {
            return source == Communicator.PROC_NULL ? Message.NO_PROC : new Left(real.probe(source, tag));
        }

        public Optional<Message> improbe(int source, int tag) {
            return source == Communicator.PROC_NULL ? Optional.of(Message.NO_PROC) : real.iprobe(source, tag).map(Left::new);
        }

        public Request imrecv(MemorySegment b, long count, Datatype type, Message message) {
            return message instanceof Left l ? real.irecv(b, count, type, l.status.source(), l.status.tag())
                    : real.imrecv(b, count, type, message);
        }

        public Status mrecv(MemorySegment b, long count, Datatype type, Message message) {
            return imrecv(b, count, type, message).await();
        }
    }

    /** Buffered sends ignore the attached buffer: they are standard sends, with or without one. */
    static final class BsendWithoutBuffer {
        private final Communicator real;

        BsendWithoutBuffer(Communicator real) {
            this.real = real;
        }

        public void bsend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            real.send(b, count, type, dest, tag);
        }

        public Request ibsend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return real.isend(b, count, type, dest, tag);
        }
    }

    /** sendrecv_replace treats the buffer as packed bytes, ignoring the datatype's gaps. */
    static final class ReplaceIgnoresGaps {
        private final Communicator real;

        ReplaceIgnoresGaps(Communicator real) {
            this.real = real;
        }

        public Status sendrecvReplace(MemorySegment b, long count, Datatype type, int dest, int sendTag, int source, int recvTag) {
            return real.sendrecvReplace(b, type.byteLength(count), Datatype.BYTE, dest, sendTag, source, recvTag);
        }
    }

    /** A partitioned send takes its parts' contents at start, not when each is marked ready. */
    static final class PartitionsReadAtStart {
        private final Communicator real;

        PartitionsReadAtStart(Communicator real) {
            this.real = real;
        }

        public PartitionedRequest psendInit(MemorySegment b, int partitions, long count, Datatype type, int dest, int tag) {
            MemorySegment shadow = copyOf(b);
            PartitionedRequest inner = real.psendInit(shadow, partitions, count, type, dest, tag);
            return new PartitionedRequest() {
                @Override
                public int partitions() {
                    return inner.partitions();
                }

                @Override
                public void pready(int partition) {
                    inner.pready(partition);
                }

                @Override
                public boolean parrived(int partition) {
                    return inner.parrived(partition);
                }

                @Override
                public void start() {
                    MemorySegment.copy(b, 0, shadow, 0, b.byteSize());
                    inner.start();
                }

                @Override
                public boolean isActive() {
                    return inner.isActive();
                }

                @Override
                public void free() {
                    inner.free();
                }

                @Override
                public Status await() {
                    return inner.await();
                }

                @Override
                public Optional<Status> test() {
                    return inner.test();
                }

                @Override
                public boolean isComplete() {
                    return inner.isComplete();
                }

                @Override
                public void cancel() {
                    inner.cancel();
                }
            };
        }
    }

    /** gatherv puts the blocks one after the other, ignoring the displacements. */
    static final class GathervIgnoresDisplacements {
        private final Communicator real;

        GathervIgnoresDisplacements(Communicator real) {
            this.real = real;
        }

        public void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements,
                            int root) {
            long[] packed = null;
            if (recvCounts != null) {
                packed = new long[recvCounts.length];
                for (int i = 1; i < packed.length; i++) {
                    packed[i] = packed[i - 1] + recvCounts[i - 1];
                }
            }
            real.gatherv(send, sendCount, type, recv, recvCounts, packed == null ? displacements : packed, root);
        }
    }

    /** exscan includes the rank's own contribution (it is scan). */
    static final class ExscanInclusive {
        private final Communicator real;

        ExscanInclusive(Communicator real) {
            this.real = real;
        }

        public void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
            real.scan(send, recv, count, type, op);
        }
    }

    /** A persistent synchronous send is a persistent standard one: it completes without waiting for its receive. */
    static final class PersistentSsendAsSend {
        private final Communicator real;

        PersistentSsendAsSend(Communicator real) {
            this.real = real;
        }

        public PersistentRequest ssendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
            return real.sendInit(buffer, count, type, dest, tag);
        }
    }

    /** splitType orders each part by rank, ignoring the keys. */
    static final class SplitTypeIgnoresKey {
        private final Communicator real;

        SplitTypeIgnoresKey(Communicator real) {
            this.real = real;
        }

        public Communicator splitType(Communicator.SplitType type, int key) {
            return real.splitType(type, 0);
        }
    }

    /** igather returns a completed request and gathers nothing. */
    static final class IgatherNeverRuns {
        IgatherNeverRuns(Communicator real) {
        }

        public Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
            return new Requests.Completed(Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0));
        }
    }

    /** A persistent allreduce runs at its first start only; later starts complete at once with the old result. */
    static final class PersistentAllreduceRunsOnce {
        private final Communicator real;

        PersistentAllreduceRunsOnce(Communicator real) {
            this.real = real;
        }

        public PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
            return new RunsOnce(real.allreduceInit(send, recv, count, type, op));
        }
    }

    /** A persistent alltoallw runs at its first start only; later starts complete at once with the old result. */
    static final class PersistentAlltoallwRunsOnce {
        private final Communicator real;

        PersistentAlltoallwRunsOnce(Communicator real) {
            this.real = real;
        }

        public PersistentRequest alltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                               MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
            return new RunsOnce(real.alltoallwInit(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements,
                    recvTypes));
        }
    }

    /** A persistent request that starts its real operation the first time only, and later completes at once. */
    private static final class RunsOnce implements PersistentRequest {
        private final PersistentRequest inner;
        private boolean ranOnce;
        private boolean active;

        RunsOnce(PersistentRequest inner) {
            this.inner = inner;
        }

        @Override
        public void start() {
            if (active) {
                inner.start(); // the real one reports the misuse
            }
            active = true;
            if (!ranOnce) {
                inner.start();
            }
        }

        @Override
        public boolean isActive() {
            return active;
        }

        @Override
        public void free() {
            inner.free();
        }

        @Override
        public Status await() {
            active = false;
            if (!ranOnce) {
                ranOnce = true;
                return inner.await();
            }
            return Status.empty();
        }

        @Override
        public Optional<Status> test() {
            return Optional.of(await());
        }

        @Override
        public boolean isComplete() {
            return true;
        }

        @Override
        public void cancel() {
        }
    }

    /** dup and idup hand back the parent itself: one context for both. */
    static final class DupSharesContext {
        private final Communicator real;

        DupSharesContext(Communicator real) {
            this.real = real;
        }

        /** The parent, seen through a communicator whose close does nothing (closing the "duplicate" must not end the parent). */
        static final class KeepOpen {
            public void close() {
            }
        }

        public Communicator dup() {
            return Forwarders.forward(Communicator.class, real, new KeepOpen());
        }

        public org.lockstep.api.CommunicatorRequest idup() {
            Communicator same = dup();
            return new org.lockstep.api.CommunicatorRequest() {
                @Override
                public Communicator communicator() {
                    return same;
                }

                @Override
                public Status await() {
                    return Status.empty();
                }

                @Override
                public Optional<Status> test() {
                    return Optional.of(Status.empty());
                }

                @Override
                public boolean isComplete() {
                    return true;
                }

                @Override
                public void cancel() {
                }
            };
        }
    }

    /** group() lists the members in reverse order. */
    static final class GroupReversed {
        private final Communicator real;

        GroupReversed(Communicator real) {
            this.real = real;
        }

        public org.lockstep.api.Group group() {
            org.lockstep.api.Group g = real.group();
            int[] w = g.worldRanks();
            int[] reversed = new int[w.length];
            for (int i = 0; i < w.length; i++) {
                reversed[i] = w[w.length - 1 - i];
            }
            return org.lockstep.api.Group.of(g.selfWorldRank(), reversed);
        }
    }

    /**
     * A breakage of the intercommunicators a communicator makes, {@code broken} giving the methods
     * it replaces on each; the parts of a split carry it too, since intercommunicators are made from them.
     */
    static final class BrokenIntercommunicators {
        private final Communicator real;
        private final java.util.function.Function<org.lockstep.api.Intercommunicator, Object> broken;

        BrokenIntercommunicators(Communicator real, java.util.function.Function<org.lockstep.api.Intercommunicator, Object> broken) {
            this.real = real;
            this.broken = broken;
        }

        public Communicator split(int color, int key) {
            Communicator part = real.split(color, key);
            return part == null ? null : Forwarders.forward(Communicator.class, part, new BrokenIntercommunicators(part, broken));
        }

        public org.lockstep.api.Intercommunicator createIntercommunicator(int localLeader, Communicator peer, int remoteLeader, int tag) {
            org.lockstep.api.Intercommunicator made = real.createIntercommunicator(localLeader, peer, remoteLeader, tag);
            return Forwarders.forward(org.lockstep.api.Intercommunicator.class, made, broken.apply(made));
        }
    }

    /** An intercommunicator's merge puts the groups in the same order whatever high they pass. */
    static final class MergeIgnoresHigh {
        private final org.lockstep.api.Intercommunicator real;

        MergeIgnoresHigh(org.lockstep.api.Intercommunicator real) {
            this.real = real;
        }

        public Communicator merge(boolean high) {
            return real.merge(false);
        }
    }

    /** An intercommunicator's gatherv ignores the root's displacements and packs the blocks in remote rank order. */
    static final class IntercommGathervPacks {
        private final org.lockstep.api.Intercommunicator real;

        IntercommGathervPacks(org.lockstep.api.Intercommunicator real) {
            this.real = real;
        }

        public void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                            long[] displacements, int root) {
            long[] packed = displacements == null ? null : new long[displacements.length];
            for (int j = 1; packed != null && j < packed.length; j++) {
                packed[j] = packed[j - 1] + recvCounts[j - 1];
            }
            real.gatherv(send, sendCount, type, recv, recvCounts, packed, root);
        }
    }

    /** An intercommunicator's ialltoall sends block 0 of the send buffer to every remote rank. */
    static final class IntercommIalltoallSendsBlock0 {
        private final org.lockstep.api.Intercommunicator real;

        IntercommIalltoallSendsBlock0(org.lockstep.api.Intercommunicator real) {
            this.real = real;
        }

        public org.lockstep.api.Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
            long block = type.byteLength(count);
            MemorySegment firstEverywhere = MemorySegment.ofArray(new byte[(int) (block * real.remoteSize())]);
            for (int j = 0; j < real.remoteSize(); j++) {
                MemorySegment.copy(send, 0, firstEverywhere, j * block, block);
            }
            return real.ialltoall(firstEverywhere, count, type, recv);
        }
    }

    /** attribute answers nothing for MPI's predefined keys. */
    static final class PredefinedUnanswered {
        private final Communicator real;

        PredefinedUnanswered(Communicator real) {
            this.real = real;
        }

        public <T> Optional<T> attribute(org.lockstep.api.Keyval<T> key) {
            return key.isPredefined() ? Optional.empty() : real.attribute(key);
        }
    }

    /** dup and idup forget the attributes: the new communicator answers no key. */
    static final class DupDropsAttributes {
        private final Communicator real;

        DupDropsAttributes(Communicator real) {
            this.real = real;
        }

        /** A duplicate that holds nothing under any key. */
        static final class Forgetful {
            public <T> java.util.Optional<T> attribute(org.lockstep.api.Keyval<T> key) {
                return java.util.Optional.empty();
            }
        }

        public Communicator dup() {
            return forgetful(real.dup());
        }

        /** An idup whose communicator is a forgetful one. */
        static final class ForgetfulRequest {
            private final org.lockstep.api.CommunicatorRequest started;

            ForgetfulRequest(org.lockstep.api.CommunicatorRequest started) {
                this.started = started;
            }

            public Communicator communicator() {
                return forgetful(started.communicator());
            }
        }

        public org.lockstep.api.CommunicatorRequest idup() {
            org.lockstep.api.CommunicatorRequest started = real.idup();
            return Forwarders.forward(org.lockstep.api.CommunicatorRequest.class, started, new ForgetfulRequest(started));
        }

        private static Communicator forgetful(Communicator made) {
            return Forwarders.forward(Communicator.class, made, new Forgetful());
        }
    }

    /** dup forgets the parent's hints: the new communicator has none. */
    static final class DupDropsHints {
        private final Communicator real;

        DupDropsHints(Communicator real) {
            this.real = real;
        }

        /** A duplicate that reports no hints. */
        static final class NoHints {
            public org.lockstep.api.Info info() {
                return org.lockstep.api.Info.EMPTY;
            }
        }

        public Communicator dup() {
            return Forwarders.forward(Communicator.class, real.dup(), new NoHints());
        }
    }

    /** setErrorHandler only remembers the handler: the real communicator keeps RETURN, so no error reaches it. */
    static final class ErrorHandlerIgnored {
        private final Communicator real;
        private org.lockstep.api.ErrorHandler remembered = org.lockstep.api.ErrorHandler.RETURN;

        ErrorHandlerIgnored(Communicator real) {
            this.real = real;
        }

        /** Duplicates carry the breakage too: the rule sets its handlers on one. */
        public Communicator dup() {
            Communicator made = real.dup();
            return Forwarders.forward(Communicator.class, made, new ErrorHandlerIgnored(made));
        }

        public void setErrorHandler(org.lockstep.api.ErrorHandler handler) {
            remembered = handler;
        }

        public org.lockstep.api.ErrorHandler errorHandler() {
            return remembered;
        }
    }
}
