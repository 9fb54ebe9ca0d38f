package org.lockstep.conformance.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;

import java.util.Optional;

import org.junit.jupiter.api.Test;

class ReferenceMatchingEngineTest {
    private final ReferenceMatchingEngine<String, String> engine = new ReferenceMatchingEngine<>();

    @Test
    void anArrivalMatchesTheEarliestPostedReceiveThatMatchesIt() {
        assertEquals(Optional.empty(), engine.post("r1", 0, 5));
        assertEquals(Optional.empty(), engine.post("r2", ANY_SOURCE, ANY_TAG));
        assertEquals(Optional.empty(), engine.post("r3", 0, 9));
        assertEquals(Optional.of("r2"), engine.arrive("m1", 0, 9), "the wildcard was posted before (0, 9)");
        assertEquals(Optional.of("r3"), engine.arrive("m2", 0, 9));
        assertEquals(Optional.of("r1"), engine.arrive("m3", 0, 5));
        assertEquals(0, engine.postedCount());
    }

    @Test
    void aPostedReceiveTakesTheEarliestMatchingUnexpectedMessage() {
        engine.arrive("a", 1, 1);
        engine.arrive("b", 1, 2);
        engine.arrive("c", 2, 2);
        assertEquals(Optional.of("b"), engine.post("r", ANY_SOURCE, 2));
        assertEquals(Optional.of("c"), engine.post("s", ANY_SOURCE, 2));
        assertEquals(Optional.of("a"), engine.post("t", 1, ANY_TAG));
        assertEquals(0, engine.unexpectedCount());
    }

    @Test
    void aProbeLooksWithoutTakingAndACancelWithdraws() {
        engine.arrive("a", 3, 7);
        assertEquals("a", engine.probe(ANY_SOURCE, 7).orElseThrow().message());
        assertEquals(1, engine.unexpectedCount());
        assertTrue(engine.probe(3, 8).isEmpty());
        engine.post("r", 3, 8);
        assertTrue(engine.cancel("r"));
        assertFalse(engine.cancel("r"), "a receive is withdrawn once");
        assertEquals(Optional.empty(), engine.arrive("b", 3, 8), "a cancelled receive matches nothing");
    }
}
