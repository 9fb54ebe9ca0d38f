package org.lockstep.spi.events;

import java.util.function.Supplier;

import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;

/**
 * The one way Lockstep begins an event: only when a recording wants it, so that none costs more
 * than a check. No event is made, and so no event class initialized, before Flight Recorder is set
 * up in this JVM: initializing the first event class registers it with Flight Recorder even when
 * nothing records, which cost a launched rank 0.2-0.3 s of its start (JDK 25, 2-core host, Dec
 * 2026) at its first message or its recovery.
 */
public final class Events {
    private Events() {
    }

    /**
     * Whether a recording can want an event: Flight Recorder is set up in this JVM (a recording made
     * in it, {@code -XX:StartFlightRecording}, {@code jcmd JFR.start}). Until then events are not made.
     */
    public static boolean recording() {
        return FlightRecorder.isInitialized();
    }

    /** An event of {@code type}, begun now, when a recording wants that type; otherwise {@code null} (and nothing was timed). */
    public static <E extends Event> E begun(Supplier<E> type) {
        if (!recording()) {
            return null;
        }
        E event = type.get();
        if (!event.isEnabled()) {
            return null;
        }
        event.begin();
        return event;
    }

    /** Ends {@code event} (from {@link #begun}: {@code null} when not recorded) now; whether it is to be committed. */
    public static boolean ended(Event event) {
        if (event == null) {
            return false;
        }
        event.end();
        return event.shouldCommit();
    }
}
