package org.lockstep.conformance.oracle;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;

/**
 * The sequential reference of MPI message matching for one receiving rank (MPI 4.1 §3.5), written
 * for clarity, not speed: one list of posted receives and one list of unexpected messages, both in
 * order. An arriving message matches the earliest posted receive it matches; a posted receive
 * takes the earliest unexpected message it matches (for {@code ANY_SOURCE}, earliest by arrival —
 * one of the choices MPI allows); a probe looks without taking.
 *
 * @param <M> what identifies a message
 * @param <R> what identifies a receive
 */
public final class ReferenceMatchingEngine<M, R> {
    /** A message as matching sees it. */
    public record Envelope<M>(M message, int source, int tag) {
    }

    private record Posted<R>(R receive, int source, int tag) {
        boolean matches(Envelope<?> e) {
            return (source == Communicator.ANY_SOURCE || source == e.source()) && (tag == Communicator.ANY_TAG || tag == e.tag());
        }
    }

    /** A match the engine made. */
    public record Match<M, R>(R receive, M message) {
    }

    private final List<Posted<R>> posted = new ArrayList<>();
    private final List<Envelope<M>> unexpected = new ArrayList<>();

    /** A message arrives; returns the receive it matched, if any. */
    public Optional<R> arrive(M message, int source, int tag) {
        Envelope<M> e = new Envelope<>(message, source, tag);
        for (Iterator<Posted<R>> it = posted.iterator(); it.hasNext(); ) {
            Posted<R> p = it.next();
            if (p.matches(e)) {
                it.remove();
                return Optional.of(p.receive());
            }
        }
        unexpected.add(e);
        return Optional.empty();
    }

    /** A receive is posted; returns the message it took at once, if any. */
    public Optional<M> post(R receive, int source, int tag) {
        Posted<R> p = new Posted<>(receive, source, tag);
        for (Iterator<Envelope<M>> it = unexpected.iterator(); it.hasNext(); ) {
            Envelope<M> e = it.next();
            if (p.matches(e)) {
                it.remove();
                return Optional.of(e.message());
            }
        }
        posted.add(p);
        return Optional.empty();
    }

    /** The message a probe for {@code (source, tag)} reports now, if any. */
    public Optional<Envelope<M>> probe(int source, int tag) {
        Posted<R> p = new Posted<>(null, source, tag);
        return unexpected.stream().filter(p::matches).findFirst();
    }

    /** Withdraws a posted receive; returns whether it was still posted. */
    public boolean cancel(R receive) {
        return posted.removeIf(p -> p.receive().equals(receive));
    }

    public int unexpectedCount() {
        return unexpected.size();
    }

    public int postedCount() {
        return posted.size();
    }
}
