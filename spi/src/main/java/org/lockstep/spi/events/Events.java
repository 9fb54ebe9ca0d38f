package org.lockstep.spi.events;

import jdk.jfr.Event;

/** The one way Lockstep begins an event: only when a recording wants it, so that none costs more than a check. */
public final class Events {
    private Events() {
    }

    /** {@code event}, begun now, when a recording wants its type; otherwise {@code null} (and nothing was timed). */
    public static <E extends Event> E begun(E event) {
        if (!event.isEnabled()) {
            return null;
        }
        event.begin();
        return event;
    }
}
