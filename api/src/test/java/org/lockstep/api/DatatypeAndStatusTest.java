package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DatatypeAndStatusTest {

    @Test
    void primitiveSizesMatchJava() {
        assertEquals(1, Datatype.BYTE.size());
        assertEquals(2, Datatype.CHAR.size());
        assertEquals(4, Datatype.FLOAT.size());
        assertEquals(8, Datatype.LONG.size());
        assertEquals(12, Datatype.DOUBLE_INT.size(), "pairs are packed");
        assertEquals(8, Datatype.INT_INT.size());
    }

    @Test
    void everyPredefinedTypeRoundTripsThroughItsId() {
        for (Datatype t : Datatype.predefined()) {
            assertEquals(t, Datatype.ofId(t.id()));
        }
        assertEquals(ErrorClass.TYPE, assertThrows(LockstepException.class, () -> Datatype.ofId(99)).errorClass());
    }

    @Test
    void byteLengthRejectsNegativeAndOverflowingCounts() {
        assertEquals(ErrorClass.COUNT, assertThrows(LockstepException.class, () -> Datatype.INT.byteLength(-1)).errorClass());
        assertEquals(ErrorClass.COUNT, assertThrows(LockstepException.class, () -> Datatype.LONG.byteLength(Long.MAX_VALUE / 4)).errorClass());
    }

    @Test
    void statusCountsWholeElementsOnly() {
        Status s = Status.of(1, 2, 12);
        assertEquals(3, s.count(Datatype.INT));
        assertEquals(Status.UNDEFINED, s.count(Datatype.LONG));
        assertTrue(s.isSuccess());
    }

    @Test
    void sizesParseBinaryMultiplesAndNameBadInput() {
        assertEquals(4096, Sizes.parse("x", "4k"));
        assertEquals(16L << 20, Sizes.parse("x", "16MiB"));
        assertEquals(2L << 30, Sizes.parse("x", "2g"));
        LockstepException e = assertThrows(LockstepException.class, () -> Sizes.parse("lockstep.device.size", "lots"));
        assertTrue(e.getMessage().contains("lockstep.device.size"));
    }

    @Test
    void jobOptionsRejectAnEmptyWorld() {
        assertEquals(ErrorClass.ARG, assertThrows(LockstepException.class, () -> JobOptions.ofRanks(0)).errorClass());
    }

    @Test
    void systemPropertiesFillInJobPropertiesButDoNotOverrideThem() {
        System.setProperty("lockstep.test.size", "from-system");
        System.setProperty("lockstep.test.kept", "from-system");
        try {
            JobOptions merged = Lockstep.withSystemProperties(JobOptions.ofRanks(2).with("lockstep.test.kept", "explicit"));
            assertEquals("from-system", merged.property("lockstep.test.size").orElseThrow());
            assertEquals("explicit", merged.property("lockstep.test.kept").orElseThrow());
        } finally {
            System.clearProperty("lockstep.test.size");
            System.clearProperty("lockstep.test.kept");
        }
    }

    @Test
    void withoutProvidersTheBootstrapSaysWhatIsMissing() {
        LockstepException e = assertThrows(LockstepException.class, () -> Lockstep.provider("nonexistent"));
        assertEquals(ErrorClass.NO_PROVIDER, e.errorClass());
        assertTrue(e.getMessage().contains("nonexistent") && e.getMessage().contains("installed"), e.getMessage());
    }
}
