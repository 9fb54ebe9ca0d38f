package org.lockstep.tck.mutants;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Breakages of checkpoint and restart. The three restart breakages of a communicator imitate, on
 * a restarted rank, what a transport with that bug would deliver (they are "simulated": the
 * transport itself replays correctly underneath); the device breakage is real: the transport runs
 * over a device whose persists are late.
 */
final class CheckpointBreakages {
    private static final long POLL_NANOS = 50_000;
    private static final int LINE = 64;

    private CheckpointBreakages() {
    }

    private static boolean restarted(Communicator real) {
        return real.checkpoints().restart().isPresent();
    }

    private static MemorySegment scratch(long count, Datatype type) {
        return MemorySegment.ofArray(new byte[(int) type.byteLength(count)]);
    }

    private static void pause() {
        if (Thread.currentThread().isInterrupted()) {
            throw new LockstepException(ErrorClass.OTHER, "interrupted in a broken receive");
        }
        LockSupport.parkNanos(POLL_NANOS);
    }

    /** checkpoint() with a pending request succeeds (the request is silently left out) instead of failing with PENDING. */
    static final class PendingIgnored {
        private final Checkpoints broken;

        PendingIgnored(Communicator real) {
            Checkpoints cp = real.checkpoints();
            this.broken = new Checkpoints() {
                @Override
                public boolean durable() {
                    return cp.durable();
                }

                @Override
                public void register(String name, MemorySegment state) {
                    cp.register(name, state);
                }

                @Override
                public Optional<Restart> restart() {
                    return cp.restart();
                }

                @Override
                public long restore() {
                    return cp.restore();
                }

                @Override
                public CheckpointResult checkpoint() {
                    try {
                        return cp.checkpoint();
                    } catch (LockstepException e) {
                        if (e.errorClass() != ErrorClass.PENDING) {
                            throw e;
                        }
                        return new CheckpointResult(0, cp.durable(), 0, 0);
                    }
                }
            };
        }

        public Checkpoints checkpoints() {
            return broken;
        }
    }

    /**
     * After a restart, a receive never gets a message that an earlier incarnation of the rank had
     * received — as if the transport had freed each message on receipt: the rank receives the next
     * one instead (or waits for ever).
     */
    static final class FreesOnReceipt {
        /** Fingerprints of the messages each rank received in its first incarnation (this JVM's runs, one at a time). */
        private static final Map<Integer, Set<String>> RECEIVED = new ConcurrentHashMap<>();
        private final Communicator real;
        private final boolean restarted;
        private final Set<String> received;

        FreesOnReceipt(Communicator real) {
            this.real = real;
            this.restarted = restarted(real);
            if (!restarted) {
                RECEIVED.put(real.rank(), ConcurrentHashMap.newKeySet());
            }
            this.received = RECEIVED.computeIfAbsent(real.rank(), r -> ConcurrentHashMap.newKeySet());
        }

        private static String fingerprint(MemorySegment b, Status s) {
            byte[] bytes = b.asSlice(0, Math.min(b.byteSize(), s.byteCount())).toArray(ValueLayout.JAVA_BYTE);
            return s.source() + "/" + s.tag() + "/" + s.byteCount() + "/" + Arrays.hashCode(bytes);
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            if (!restarted) {
                Request r = real.irecv(b, count, type, source, tag);
                return RequestBreakages.broken(r, new RequestBreakages.MapStatus(r, s -> {
                    received.add(fingerprint(b, s));
                    return s;
                }));
            }
            MemorySegment in = scratch(count, type);
            while (true) {
                Status s = real.irecv(in, count, type, source, tag).await();
                if (!received.contains(fingerprint(in, s))) {
                    MemorySegment.copy(in, 0, b, 0, Math.min(in.byteSize(), s.byteCount()));
                    return new Requests.Completed(s);
                }
            }
        }
    }

    /** After a restart, the first two messages received on each channel come in swapped. */
    static final class ReplaysOutOfOrder {
        private record Held(MemorySegment bytes, Status status) {
        }

        private final Communicator real;
        private final boolean restarted;
        private final boolean[] swapped;
        private final Held[] held;

        ReplaysOutOfOrder(Communicator real) {
            this.real = real;
            this.restarted = restarted(real);
            this.swapped = new boolean[real.size()];
            this.held = new Held[real.size()];
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            if (!restarted || source < 0 || source >= held.length) {
                return real.irecv(b, count, type, source, tag);
            }
            if (held[source] != null) {
                Held h = held[source];
                held[source] = null;
                MemorySegment.copy(h.bytes(), 0, b, 0, Math.min(b.byteSize(), h.status().byteCount()));
                return new Requests.Completed(h.status());
            }
            if (swapped[source]) {
                return real.irecv(b, count, type, source, tag);
            }
            swapped[source] = true;
            MemorySegment first = scratch(count, type);
            Status firstStatus = real.irecv(first, count, type, source, tag).await();
            Status second = real.irecv(b, count, type, source, tag).await();
            held[source] = new Held(first, firstStatus);
            return new Requests.Completed(second);
        }
    }

    /**
     * After a restart, ANY_SOURCE receives take the lowest-ranked sender that has a message, as a
     * transport that does not log its matching order would (all messages are there at once on replay).
     */
    static final class ForgetsWildcardOrder {
        private final Communicator real;
        private final boolean restarted;

        ForgetsWildcardOrder(Communicator real) {
            this.real = real;
            this.restarted = restarted(real);
        }

        public Request irecv(MemorySegment b, long count, Datatype type, int source, int tag) {
            if (!restarted || source != Communicator.ANY_SOURCE) {
                return real.irecv(b, count, type, source, tag);
            }
            while (true) {
                for (int s = 0; s < real.size(); s++) {
                    if (real.iprobe(s, tag).isPresent()) {
                        return new Requests.Completed(real.irecv(b, count, type, s, tag).await());
                    }
                }
                pause();
            }
        }
    }

    /**
     * A persist makes the first line of its range durable at once and the rest only after the next
     * persist: what a transport names or publishes right after persisting a message (its header in
     * the first line) is durable before the message's payload is.
     */
    static final class PersistsAfterPublishing {
        private record Range(long offset, long length) {
        }

        private final ExternalMemory real;
        private final ThreadLocal<Range> late = new ThreadLocal<>();

        PersistsAfterPublishing(ExternalMemory real) {
            this.real = real;
        }

        public void persist(long offset, long length) {
            long firstLineEnd = Math.min(offset + length, (offset / LINE + 1) * LINE);
            real.persist(offset, firstLineEnd - offset);
            Range previous = late.get();
            late.remove();
            if (previous != null) {
                real.persist(previous.offset(), previous.length());
            }
            if (offset + length > firstLineEnd) {
                late.set(new Range(firstLineEnd, offset + length - firstLineEnd));
            }
        }
    }
}
