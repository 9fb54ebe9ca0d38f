package org.lockstep.tck.mutants;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/** Breakages of derived-datatype handling, each a plausible bug of a provider's packing. */
final class DatatypeBreakages {
    private DatatypeBreakages() {
    }

    private static boolean strided(Datatype t) {
        return t != null && !t.isContiguous();
    }

    /** Point-to-point treats a derived type's elements as packed: it ignores the type map's gaps and strides. */
    static final class IgnoresStride {
        private final Communicator real;

        IgnoresStride(Communicator real) {
            this.real = real;
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return strided(type) ? real.isend(b, type.byteLength(count), Datatype.BYTE, dest, tag) : real.isend(b, count, type, dest, tag);
        }

        public Request issend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return strided(type) ? real.issend(b, type.byteLength(count), Datatype.BYTE, dest, tag) : real.issend(b, count, type, dest, tag);
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            return strided(type) ? real.irecv(b, type.byteLength(count), Datatype.BYTE, source, tag) : real.irecv(b, count, type, source, tag);
        }
    }

    /** Collectives treat a derived type's elements as packed bytes (broadcast, all-gather, all-to-all, all-reduce). */
    static final class CollectivesIgnoreStride {
        private final Communicator real;

        CollectivesIgnoreStride(Communicator real) {
            this.real = real;
        }

        public void bcast(MemorySegment b, long count, Datatype type, int root) {
            if (strided(type)) {
                real.bcast(b, type.byteLength(count), Datatype.BYTE, root);
            } else {
                real.bcast(b, count, type, root);
            }
        }

        public void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
            if (strided(type)) {
                real.allgather(send, type.byteLength(count), Datatype.BYTE, recv);
            } else {
                real.allgather(send, count, type, recv);
            }
        }

        public void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
            if (strided(type)) {
                real.alltoall(send, type.byteLength(count), Datatype.BYTE, recv);
            } else {
                real.alltoall(send, count, type, recv);
            }
        }

        public void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
            if (strided(type) && type.basicType() != null) {
                real.allreduce(send, recv, type.size() / type.basicType().size() * count, type.basicType(), op);
            } else {
                real.allreduce(send, recv, count, type, op);
            }
        }
    }

    /** A receive of a derived type reports the bytes of whole elements: a partial last element counts as whole. */
    static final class PartialCountsAsWhole {
        private final Communicator real;

        PartialCountsAsWhole(Communicator real) {
            this.real = real;
        }

        private static Status rounded(Status s, Datatype type) {
            long size = type.size();
            long bytes = size == 0 ? s.byteCount() : (s.byteCount() + size - 1) / size * size;
            return new Status(s.source(), s.tag(), bytes, s.cancelled(), s.error());
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            Request r = real.irecv(b, count, type, source, tag);
            return type.isPredefined() ? r : RequestBreakages.broken(r, new RequestBreakages.MapStatus(r, s -> rounded(s, type)));
        }
    }

    /** An uncommitted datatype is committed on first use instead of being rejected. */
    static final class AcceptsUncommitted {
        private final Communicator real;

        AcceptsUncommitted(Communicator real) {
            this.real = real;
        }

        private static Datatype committed(Datatype t) {
            if (t != null && !t.isPredefined() && !t.isFreed() && !t.isCommitted()) {
                t.commit();
            }
            return t;
        }

        public Request isend(MemorySegment b, long count, Datatype type, int dest, int tag) {
            return real.isend(b, count, committed(type), dest, tag);
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            return real.irecv(b, count, committed(type), source, tag);
        }

        public void bcast(MemorySegment b, long count, Datatype type, int root) {
            real.bcast(b, count, committed(type), root);
        }
    }
}
