package org.lockstep.spi.events;

import java.util.function.Supplier;

import org.lockstep.api.Communicator;

/**
 * Records collective calls as {@link CollectiveEvent}s: {@link #begin} before the provider's
 * algorithm runs or starts, {@link #algorithm} from inside it once it has chosen, then {@link #end}
 * after a blocking call, or {@link #started} once a non-blocking one has started and
 * {@link #completed} when a wait or test returns its request complete (only for an event
 * {@link #begin} returned: when no recording asks for the event it returns {@code null}, and the
 * call costs nothing more).
 */
public final class CollectiveRecording {
    public static final String BLOCKING = "blocking";
    public static final String NON_BLOCKING = "non-blocking";
    public static final String PERSISTENT = "persistent";

    /** The call the current thread is in, so that the algorithm it chooses can name itself. */
    private static final ThreadLocal<CollectiveEvent> CURRENT = new ThreadLocal<>();
    /** Set while the current thread starts a persistent collective (through its non-blocking form). */
    private static final ThreadLocal<Boolean> STARTING_PERSISTENT = new ThreadLocal<>();

    private CollectiveRecording() {
    }

    /** The event of a call that starts now, or {@code null} when no recording wants it. */
    public static CollectiveEvent begin() {
        CollectiveEvent event = Events.begun(CollectiveEvent::new);
        if (event != null) {
            CURRENT.set(event);
        }
        return event;
    }

    /** Names the algorithm of the call the current thread is in (nothing when it is not recorded). */
    public static void algorithm(String name) {
        CollectiveEvent event = CURRENT.get();
        if (event != null && event.algorithm == null) {
            event.algorithm = name;
        }
    }

    /** Ends the blocking call of {@code event} (from {@link #begin}, not null) and commits it. */
    public static void end(CollectiveEvent event, String operation, Communicator communicator, long bytes) {
        CURRENT.remove();
        completed(event, operation, BLOCKING, communicator, bytes);
    }

    /**
     * The non-blocking call of {@code event} has started (its algorithm is chosen): the event now
     * waits for {@link #completed}. Returns its kind: {@link #PERSISTENT} inside {@link #persistentStart}.
     */
    public static String started(CollectiveEvent event) {
        CURRENT.remove();
        return STARTING_PERSISTENT.get() != null ? PERSISTENT : NON_BLOCKING;
    }

    /** Runs one start of a persistent collective, whose non-blocking start is then recorded as {@link #PERSISTENT}. */
    public static <R> R persistentStart(Supplier<R> start) {
        if (!Events.recording() || !new CollectiveEvent().isEnabled()) {
            return start.get();
        }
        STARTING_PERSISTENT.set(Boolean.TRUE);
        try {
            return start.get();
        } finally {
            STARTING_PERSISTENT.remove();
        }
    }

    /** Ends the call of {@code event} (from {@link #begin}, not null), of the given kind, and commits it. */
    public static void completed(CollectiveEvent event, String operation, String kind, Communicator communicator, long bytes) {
        event.end();
        if (event.shouldCommit()) {
            event.operation = operation;
            event.kind = kind;
            event.rank = communicator.rank();
            event.size = communicator.size();
            event.bytes = bytes;
            if (event.algorithm == null) {
                // a communicator of one rank has nothing to exchange; otherwise the provider did not say
                event.algorithm = event.size == 1 ? "none: one rank" : "unnamed";
            }
            event.commit();
        }
    }
}
