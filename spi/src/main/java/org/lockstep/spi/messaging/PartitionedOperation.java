package org.lockstep.spi.messaging;

import java.util.Optional;
import java.util.function.IntFunction;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A partitioned send or receive over point-to-point: part {@code i} is one message, sent in part
 * order (a part leaves once it and every part before it are ready, so the receiver's part
 * receives, posted in order at each start, match them one by one without overtaking).
 */
public final class PartitionedOperation extends PersistentOperation implements PartitionedRequest {
    private final int partitions;
    private final boolean sender;

    private PartitionedOperation(String what, int partitions, boolean sender, IntFunction<Request> part) {
        super(what, () -> new Parts(partitions, sender, part));
        this.partitions = partitions;
        this.sender = sender;
    }

    /** A send whose part {@code i} is started by {@code part.apply(i)} once it may leave. */
    public static PartitionedOperation send(int partitions, IntFunction<Request> part) {
        return new PartitionedOperation("partitioned send", partitions, true, part);
    }

    /** A receive whose part receives {@code part.apply(i)} are posted, in order, at each start. */
    public static PartitionedOperation receive(int partitions, IntFunction<Request> part) {
        return new PartitionedOperation("partitioned receive", partitions, false, part);
    }

    @Override
    public int partitions() {
        return partitions;
    }

    private Parts active(String call) {
        Request r = current();
        if (r == null) {
            throw new LockstepException(ErrorClass.REQUEST, call + " on a partitioned operation that is not active (start it first)");
        }
        return (Parts) r;
    }

    private void checkPartition(int partition) {
        if (partition < 0 || partition >= partitions) {
            throw new LockstepException(ErrorClass.ARG, "partition " + partition + " is outside [0, " + partitions + ")");
        }
    }

    @Override
    public void pready(int partition) {
        if (!sender) {
            throw new LockstepException(ErrorClass.REQUEST, "pready on a partitioned receive");
        }
        checkPartition(partition);
        active("pready").ready(partition);
    }

    @Override
    public boolean parrived(int partition) {
        if (sender) {
            throw new LockstepException(ErrorClass.REQUEST, "parrived on a partitioned send");
        }
        checkPartition(partition);
        return active("parrived").arrived(partition);
    }

    /** The parts of one start. */
    private static final class Parts implements Request {
        private final IntFunction<Request> part;
        private final Request[] requests;
        private final boolean[] ready;
        private final boolean[] done;
        private int next;
        private int completed;

        Parts(int partitions, boolean sender, IntFunction<Request> part) {
            this.part = part;
            this.requests = new Request[partitions];
            this.ready = new boolean[partitions];
            this.done = new boolean[partitions];
            if (!sender) {
                for (int i = 0; i < partitions; i++) {
                    requests[i] = part.apply(i);
                }
                next = partitions;
            }
        }

        void ready(int partition) {
            if (ready[partition]) {
                throw new LockstepException(ErrorClass.REQUEST, "partition " + partition + " was marked ready twice in one start");
            }
            ready[partition] = true;
            while (next < requests.length && ready[next]) {
                requests[next] = part.apply(next);
                next++;
            }
        }

        boolean arrived(int partition) {
            if (!done[partition] && requests[partition].test().isPresent()) {
                done[partition] = true;
                completed++;
            }
            return done[partition];
        }

        private void checkAllStarted() {
            if (next < requests.length) {
                throw new LockstepException(ErrorClass.REQUEST, "waiting on a partitioned send whose partition " + next
                        + " is not ready: it could never complete (call pready for every partition first)");
            }
        }

        @Override
        public Status await() {
            checkAllStarted();
            Status last = Status.empty();
            for (int i = 0; i < requests.length; i++) {
                if (!done[i]) {
                    last = requests[i].await();
                    done[i] = true;
                    completed++;
                }
            }
            return last;
        }

        @Override
        public Optional<Status> test() {
            if (next < requests.length) {
                return Optional.empty();
            }
            for (int i = 0; i < requests.length; i++) {
                arrived(i);
            }
            return completed == requests.length ? Optional.of(Status.empty()) : Optional.empty();
        }

        @Override
        public boolean isComplete() {
            return completed == requests.length;
        }

        @Override
        public void cancel() {
            for (Request r : requests) {
                if (r != null) {
                    r.cancel();
                }
            }
        }
    }
}
