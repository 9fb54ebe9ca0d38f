package org.lockstep.spi.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MatchingEngineTest {
    private static final int ANY_SOURCE = MatchingEngine.ANY_SOURCE;
    private static final int ANY_TAG = MatchingEngine.ANY_TAG;

    private final MatchingEngine<String> engine = new MatchingEngine<>(4);

    private static final class Receive extends MatchingEngine.PostedReceive {
        Receive(int source, int tag, int context) {
            super(source, tag, context);
        }
    }

    private MatchingEngine.Arrival<String> arrival(int source, int tag, int context, String name) {
        return new MatchingEngine.Arrival<>(new Envelope(source, tag, context), 8, name);
    }

    @Test
    void aWildcardReceiveTakesTheEarliestArrivalAcrossSources() {
        engine.arrive(arrival(2, 1, 0, "first"));
        engine.arrive(arrival(1, 1, 0, "second"));
        engine.arrive(arrival(2, 1, 0, "third"));
        assertEquals("first", engine.post(new Receive(ANY_SOURCE, ANY_TAG, 0)).handle());
        assertEquals("second", engine.post(new Receive(ANY_SOURCE, 1, 0)).handle());
        assertEquals("third", engine.post(new Receive(2, ANY_TAG, 0)).handle());
        assertEquals(0, engine.unexpectedCount());
    }

    @Test
    void anArrivalMatchesTheEarliestPostedReceiveWhetherWildcardOrNot() {
        Receive specific = new Receive(1, 5, 0);
        Receive wildcard = new Receive(ANY_SOURCE, ANY_TAG, 0);
        Receive later = new Receive(1, 5, 0);
        assertNull(engine.post(wildcard));
        assertNull(engine.post(specific));
        assertNull(engine.post(later));
        assertSame(wildcard, engine.arrive(arrival(1, 5, 0, "a")));
        assertSame(specific, engine.arrive(arrival(1, 5, 0, "b")));
        assertSame(later, engine.arrive(arrival(1, 5, 0, "c")));
        assertEquals(0, engine.postedCount());
    }

    @Test
    void takePostedThenAddUnexpectedMatchesAsArriveDoes() {
        Receive wildcard = new Receive(ANY_SOURCE, 5, 0);
        Receive specific = new Receive(1, ANY_TAG, 0);
        assertNull(engine.post(wildcard));
        assertNull(engine.post(specific));
        assertNull(engine.takePosted(1, 5, 1, 8), "another context matches no receive");
        assertSame(wildcard, engine.takePosted(1, 5, 0, 8), "the earlier posted of the two");
        assertSame(specific, engine.takePosted(1, 5, 0, 8));
        assertNull(engine.takePosted(1, 5, 0, 8));
        assertEquals(0, engine.postedCount());
        engine.addUnexpected(arrival(1, 5, 0, "waits"));
        assertEquals(1, engine.unexpectedCount());
        assertEquals("waits", engine.post(new Receive(ANY_SOURCE, ANY_TAG, 0)).handle());
    }

    @Test
    void contextsNeverMixEvenWithWildcards() {
        assertNull(engine.post(new Receive(ANY_SOURCE, ANY_TAG, 1)));
        assertNull(engine.arrive(arrival(0, 3, 0, "world")), "a message on context 0 must not match a receive on context 1");
        assertEquals(1, engine.unexpectedCount());
        assertNull(engine.probe(ANY_SOURCE, ANY_TAG, 2));
        assertEquals("world", engine.probe(ANY_SOURCE, ANY_TAG, 0).handle());
    }

    @Test
    void aReceiveForOneTagLeavesEarlierMessagesOfOtherTagsInOrder() {
        engine.arrive(arrival(0, 1, 0, "t1-a"));
        engine.arrive(arrival(0, 2, 0, "t2"));
        engine.arrive(arrival(0, 1, 0, "t1-b"));
        assertEquals("t2", engine.post(new Receive(0, 2, 0)).handle());
        assertEquals("t1-a", engine.post(new Receive(0, 1, 0)).handle());
        assertEquals("t1-b", engine.post(new Receive(0, ANY_TAG, 0)).handle());
    }

    @Test
    void probeDoesNotConsumeAndCancelRemovesOnlyQueuedReceives() {
        engine.arrive(arrival(3, 9, 0, "m"));
        assertEquals("m", engine.probe(3, 9, 0).handle());
        assertEquals(1, engine.unexpectedCount());
        Receive r = new Receive(2, 9, 0);
        assertNull(engine.post(r));
        assertTrue(r.isQueued());
        assertTrue(engine.cancel(r));
        assertFalse(engine.cancel(r));
        assertNull(engine.arrive(arrival(2, 9, 0, "n")), "a cancelled receive must not match");
        assertEquals(2, engine.unexpectedCount());
    }
}
