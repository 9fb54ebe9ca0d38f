package org.lockstep.spi.messaging;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Objects;

import org.lockstep.api.Communicator;
import org.lockstep.spi.events.Events;
import org.lockstep.spi.events.MatchEvent;

/**
 * MPI message matching for one receiving rank: the posted-receive queue and the unexpected-message
 * queue, with {@code ANY_SOURCE} and {@code ANY_TAG}, and the non-overtaking rule — among messages
 * from one sender on one context, the earliest that matches is matched first; among posted
 * receives, the earliest posted that matches is matched first.
 *
 * <p>Both queues are bucketed by source, with a separate bucket for wildcard-source receives, and
 * every entry carries a global sequence stamp so that a wildcard search across buckets still finds
 * the earliest entry. The transport must deliver arrivals from each sender in send order.
 *
 * <p>Not thread-safe: a rank's transport calls it under its own progress lock.
 *
 * @param <M> the transport's handle of an arrived message (for example a device slot)
 */
public final class MatchingEngine<M> {
    public static final int ANY_SOURCE = Communicator.ANY_SOURCE;
    public static final int ANY_TAG = Communicator.ANY_TAG;

    /** A message that has arrived and waits to be matched. */
    public static final class Arrival<M> {
        private final Envelope envelope;
        private final long byteLength;
        private final M handle;
        private long stamp;

        public Arrival(Envelope envelope, long byteLength, M handle) {
            this.envelope = Objects.requireNonNull(envelope, "envelope");
            this.byteLength = byteLength;
            this.handle = handle;
        }

        public Envelope envelope() {
            return envelope;
        }

        public long byteLength() {
            return byteLength;
        }

        public M handle() {
            return handle;
        }
    }

    /** A receive (or a matching probe) that waits for a message. */
    public abstract static class PostedReceive {
        private final int source;
        private final int tag;
        private final int context;
        private long stamp;
        private boolean queued;

        protected PostedReceive(int source, int tag, int context) {
            this.source = source;
            this.tag = tag;
            this.context = context;
        }

        public int source() {
            return source;
        }

        public int tag() {
            return tag;
        }

        public int context() {
            return context;
        }

        /** Whether this receive waits in the posted queue. */
        public boolean isQueued() {
            return queued;
        }
    }

    private final ArrayDeque<Arrival<M>>[] unexpectedBySource;
    private final ArrayDeque<PostedReceive>[] postedBySource;
    private final ArrayDeque<PostedReceive> postedAnySource = new ArrayDeque<>();
    private long nextStamp;
    private int unexpectedCount;
    private int postedCount;

    /** An engine for a receiver whose senders are ranks {@code [0, worldSize)}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public MatchingEngine(int worldSize) {
        if (worldSize < 1) {
            throw new IllegalArgumentException("world size " + worldSize);
        }
        unexpectedBySource = new ArrayDeque[worldSize];
        postedBySource = new ArrayDeque[worldSize];
        for (int i = 0; i < worldSize; i++) {
            unexpectedBySource[i] = new ArrayDeque<>();
            postedBySource[i] = new ArrayDeque<>();
        }
    }

    /**
     * Posts a receive: returns the earliest unexpected message it matches, removed from the
     * unexpected queue, or {@code null} after queueing the receive.
     */
    public Arrival<M> post(PostedReceive receive) {
        Arrival<M> found = takeUnexpected(receive.source, receive.tag, receive.context, true);
        if (found != null) {
            if (Events.recording()) {
                MatchEvent.matched(found.envelope.source(), found.envelope.tag(), found.envelope.context(), found.byteLength, true);
            }
            return found;
        }
        receive.stamp = nextStamp++;
        receive.queued = true;
        postedCount++;
        (receive.source == ANY_SOURCE ? postedAnySource : postedBySource[receive.source]).addLast(receive);
        return null;
    }

    /**
     * Delivers an arrived message: returns the earliest posted receive it matches, removed from the
     * posted queue, or {@code null} after queueing the message as unexpected.
     */
    public PostedReceive arrive(Arrival<M> arrival) {
        Envelope e = arrival.envelope;
        PostedReceive chosen = takePosted(e.source(), e.tag(), e.context(), arrival.byteLength);
        if (chosen == null) {
            addUnexpected(arrival);
        }
        return chosen;
    }

    /**
     * {@link #arrive} in two steps, for a transport that builds the {@link Arrival} only for a message
     * that waits: the earliest posted receive that matches a message of {@code byteLength} bytes
     * from {@code source} with {@code tag} on {@code context}, removed from the posted queue; or
     * {@code null}, and then the caller must queue the message at once with {@link #addUnexpected}.
     */
    public PostedReceive takePosted(int source, int tag, int context, long byteLength) {
        PostedReceive specific = firstMatching(postedBySource[source], source, tag, context);
        PostedReceive wildcard = firstMatching(postedAnySource, source, tag, context);
        PostedReceive chosen = specific == null ? wildcard
                : wildcard == null ? specific
                : (specific.stamp < wildcard.stamp ? specific : wildcard);
        if (chosen != null) {
            (chosen == specific ? postedBySource[source] : postedAnySource).remove(chosen);
            chosen.queued = false;
            postedCount--;
            if (Events.recording()) {
                MatchEvent.matched(source, tag, context, byteLength, false);
            }
        }
        return chosen;
    }

    /** Queues a message that {@link #takePosted} found no receive for, as unexpected. */
    public void addUnexpected(Arrival<M> arrival) {
        arrival.stamp = nextStamp++;
        unexpectedBySource[arrival.envelope.source()].addLast(arrival);
        unexpectedCount++;
    }

    /** The earliest unexpected message that matches, left in the queue ({@code MPI_Iprobe}). */
    public Arrival<M> probe(int source, int tag, int context) {
        return takeUnexpected(source, tag, context, false);
    }

    /** Removes a posted receive that has not matched; returns whether it was still queued. */
    public boolean cancel(PostedReceive receive) {
        if (!receive.queued) {
            return false;
        }
        boolean removed = (receive.source == ANY_SOURCE ? postedAnySource : postedBySource[receive.source]).remove(receive);
        if (removed) {
            receive.queued = false;
            postedCount--;
        }
        return removed;
    }

    /** Messages waiting to be matched. */
    public int unexpectedCount() {
        return unexpectedCount;
    }

    /** Receives waiting for a message. */
    public int postedCount() {
        return postedCount;
    }

    /** Whether any unexpected message from {@code source} is queued. */
    public boolean hasUnexpectedFrom(int source) {
        return !unexpectedBySource[source].isEmpty();
    }

    /** Posted receives, specific and wildcard, in no particular order (for failure handling). */
    public Iterable<PostedReceive> postedReceives() {
        ArrayDeque<PostedReceive> all = new ArrayDeque<>(postedAnySource);
        for (ArrayDeque<PostedReceive> q : postedBySource) {
            all.addAll(q);
        }
        return all;
    }

    private Arrival<M> takeUnexpected(int source, int tag, int context, boolean remove) {
        if (source != ANY_SOURCE) {
            return scan(unexpectedBySource[source], tag, context, remove);
        }
        Arrival<M> best = null;
        int bestSource = -1;
        for (int s = 0; s < unexpectedBySource.length; s++) {
            Arrival<M> candidate = scan(unexpectedBySource[s], tag, context, false);
            if (candidate != null && (best == null || candidate.stamp < best.stamp)) {
                best = candidate;
                bestSource = s;
            }
        }
        if (best != null && remove) {
            unexpectedBySource[bestSource].remove(best);
            unexpectedCount--;
        }
        return best;
    }

    private Arrival<M> scan(ArrayDeque<Arrival<M>> queue, int tag, int context, boolean remove) {
        if (queue.isEmpty()) {
            return null; // an ANY_SOURCE receive looks at every source's queue: most are empty, and need no iterator
        }
        for (Iterator<Arrival<M>> it = queue.iterator(); it.hasNext(); ) {
            Arrival<M> a = it.next();
            Envelope e = a.envelope;
            if (e.context() == context && (tag == ANY_TAG || tag == e.tag())) {
                if (remove) {
                    it.remove();
                    unexpectedCount--;
                }
                return a;
            }
        }
        return null;
    }

    private static PostedReceive firstMatching(ArrayDeque<PostedReceive> queue, int source, int tag, int context) {
        if (queue.isEmpty()) {
            return null;
        }
        for (PostedReceive r : queue) {
            if (r.context == context && (r.source == ANY_SOURCE || r.source == source) && (r.tag == ANY_TAG || r.tag == tag)) {
                return r;
            }
        }
        return null;
    }
}
