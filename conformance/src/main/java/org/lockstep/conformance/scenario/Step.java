package org.lockstep.conformance.scenario;

import java.util.List;

/** One step of a rank's program in a scenario. */
public sealed interface Step {
    /** Starts sending a message ({@code isend} or {@code issend}); it is waited for at the end of the program. */
    record Send(int message) implements Step {
        @Override
        public String toString() {
            return "send m" + message;
        }
    }

    /**
     * A receive, standing for message {@code intended} (which it gets exactly on a
     * {@link ReceivePattern#SPECIFIC} rank; elsewhere some message that matches).
     *
     * @param index    number of this receive in its rank's program (used by {@link Complete})
     * @param intended the message this receive was generated for
     * @param spec     source and tag asked for
     * @param capacity receive buffer in bytes (smaller than the message: a truncation is expected)
     * @param style    how it is made
     */
    record Receive(int index, int intended, ReceiveSpec spec, int capacity, Style style) implements Step {
        @Override
        public String toString() {
            return "recv#" + index + " " + style.name().toLowerCase(java.util.Locale.ROOT) + " " + spec + " cap " + capacity
                    + " (for m" + intended + ")";
        }
    }

    /** How a {@link Receive} is made. */
    enum Style {
        /** {@code recv}. */
        BLOCKING,
        /** {@code irecv} now, completed by a later {@link Complete}. */
        IMMEDIATE,
        /** {@code probe} with the spec, then {@code recv} from the source and tag the probe reported. */
        PROBE_THEN_RECEIVE,
        /** {@code iprobe} until it reports, then {@code recv} from that source and tag. */
        IPROBE_THEN_RECEIVE
    }

    /** Completes earlier {@link Style#IMMEDIATE} receives (by their indices) in one of several ways. */
    record Complete(List<Integer> receives, Completion how) implements Step {
        @Override
        public String toString() {
            return "complete " + receives.stream().map(i -> "#" + i).toList() + " by " + how.name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Multi-completion styles. */
    enum Completion {
        /** {@code await} each in order. */
        WAIT_EACH,
        /** {@code Request.waitAll}. */
        WAIT_ALL,
        /** {@code Request.testAll} until it reports all. */
        TEST_ALL,
        /** Test each until any completes, repeatedly (the {@code waitAny} loop of MPI programs). */
        ANY_LOOP
    }

    /** Posts a receive for a tag nobody sends, cancels it, and expects it to complete cancelled. */
    record CancelUnmatched(ReceiveSpec spec) implements Step {
        @Override
        public String toString() {
            return "cancel an unmatched receive " + spec;
        }
    }
}
