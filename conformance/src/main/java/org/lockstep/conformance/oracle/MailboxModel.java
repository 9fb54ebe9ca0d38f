package org.lockstep.conformance.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.lockstep.api.Communicator;

/**
 * The sequential model of the mailboxes between ranks: one FIFO queue per (sender, receiver)
 * channel. A send appends its message to its channel, and only after the sender's earlier messages
 * on that channel (MPI's order is program order, not real time); a receive for {@code (source, tag)} takes a
 * message that is the earliest in its channel among those matching the tag (any channel for
 * {@code ANY_SOURCE}); a probe finds such a message and leaves it. Immutable, with value equality,
 * for {@link LinearizabilityChecker}.
 *
 * @param queues   channel key ({@code sender * 2^32 + receiver}) to the messages in the channel, oldest first
 * @param enqueued channel key to how many messages have been sent on it
 */
public record MailboxModel(Map<Long, List<Msg>> queues, Map<Long, Integer> enqueued) {
    /** A message in a queue. */
    public record Msg(int id, int source, int tag) {
    }

    public static final MailboxModel EMPTY = new MailboxModel(Map.of(), Map.of());

    public MailboxModel {
        queues = Map.copyOf(queues);
        enqueued = Map.copyOf(enqueued);
    }

    private static long channel(int source, int dest) {
        return ((long) source << Integer.SIZE) | (dest & 0xFFFF_FFFFL);
    }

    /** The effect of sending message {@code id}, the {@code order}-th (from 0) its sender sends on its channel. */
    public static LinearizabilityChecker.Effect<MailboxModel> send(int id, int source, int dest, int tag, int order) {
        return state -> {
            long ch = channel(source, dest);
            if (state.enqueued.getOrDefault(ch, 0) != order) {
                return Optional.empty();
            }
            TreeMap<Long, List<Msg>> q = new TreeMap<>(state.queues);
            List<Msg> list = new ArrayList<>(q.getOrDefault(ch, List.of()));
            list.add(new Msg(id, source, tag));
            q.put(ch, List.copyOf(list));
            TreeMap<Long, Integer> e = new TreeMap<>(state.enqueued);
            e.put(ch, order + 1);
            return Optional.of(new MailboxModel(q, e));
        };
    }

    /** The effect of a receive by {@code dest} for {@code (specSource, specTag)} that got message {@code id} from {@code source}. */
    public static LinearizabilityChecker.Effect<MailboxModel> receive(int dest, int specSource, int specTag, int id, int source) {
        return state -> state.earliest(dest, specSource, specTag, id, source).map(index -> {
            TreeMap<Long, List<Msg>> q = new TreeMap<>(state.queues);
            List<Msg> list = new ArrayList<>(q.get(channel(source, dest)));
            list.remove((int) index);
            if (list.isEmpty()) {
                q.remove(channel(source, dest));
            } else {
                q.put(channel(source, dest), List.copyOf(list));
            }
            return new MailboxModel(q, state.enqueued);
        });
    }

    /** The effect of a probe by {@code dest} for {@code (specSource, specTag)} that reported message {@code id} from {@code source}. */
    public static LinearizabilityChecker.Effect<MailboxModel> probe(int dest, int specSource, int specTag, int id, int source) {
        return state -> state.earliest(dest, specSource, specTag, id, source).map(index -> state);
    }

    /** Index of message {@code id} in its channel if it is there and is the earliest matching the spec. */
    private Optional<Integer> earliest(int dest, int specSource, int specTag, int id, int source) {
        if (specSource != Communicator.ANY_SOURCE && specSource != source) {
            return Optional.empty();
        }
        List<Msg> list = queues.getOrDefault(channel(source, dest), List.of());
        for (int i = 0; i < list.size(); i++) {
            Msg m = list.get(i);
            if (specTag == Communicator.ANY_TAG || specTag == m.tag()) {
                return m.id() == id ? Optional.of(i) : Optional.empty();
            }
        }
        return Optional.empty();
    }
}
