package org.lockstep.spi.events;

import org.lockstep.api.Communicator;

/**
 * Records collective calls as {@link CollectiveEvent}s: {@link #begin} before the provider's
 * algorithm runs, {@link #algorithm} from inside it once it has chosen, {@link #end} after (only
 * for an event {@link #begin} returned: when no recording asks for the event, it returns
 * {@code null}, and the call costs nothing more).
 */
public final class CollectiveRecording {
    /** The call the current thread is in, so that the algorithm it chooses can name itself. */
    private static final ThreadLocal<CollectiveEvent> CURRENT = new ThreadLocal<>();

    private CollectiveRecording() {
    }

    /** The event of a call that starts now, or {@code null} when no recording wants it. */
    public static CollectiveEvent begin() {
        CollectiveEvent event = Events.begun(new CollectiveEvent());
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

    /** Ends the call of {@code event} (from {@link #begin}, not null) and commits it. */
    public static void end(CollectiveEvent event, String operation, Communicator communicator, long bytes) {
        event.end();
        CURRENT.remove();
        if (event.shouldCommit()) {
            event.operation = operation;
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
