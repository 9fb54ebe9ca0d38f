package org.lockstep.tck.mutants;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Breakages of checkpoint and restart made from outside the provider: a checkpoint call that
 * ignores pending requests, and a device whose persists are late (the transport runs over it). The
 * breakages of the message log itself are the mailbox transport's own fault-injection hooks
 * ({@link Mutant.Where#PROVIDER_FAULT}).
 */
final class CheckpointBreakages {
    private static final int LINE = 64;

    private CheckpointBreakages() {
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
