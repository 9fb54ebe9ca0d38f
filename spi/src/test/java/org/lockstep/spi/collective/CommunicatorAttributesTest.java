package org.lockstep.spi.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Keyval;
import org.lockstep.api.LockstepException;

/** What the keys' callbacks see when values are copied and deleted, including callbacks that fail. */
class CommunicatorAttributesTest {
    @Test
    void closingRunsEveryDeleterLatestFirstAndThrowsTheFirstFailureWithTheOthersSuppressed() {
        List<String> deleted = new ArrayList<>();
        LockstepException first = new LockstepException(ErrorClass.OTHER, "first");
        Keyval<String> plain = Keyval.create(Keyval.notCopied(), (c, v) -> deleted.add(v));
        Keyval<String> failing = Keyval.create(Keyval.notCopied(), (c, v) -> {
            deleted.add(v);
            throw first;
        });
        Keyval<String> alsoFailing = Keyval.create(Keyval.notCopied(), (c, v) -> {
            deleted.add(v);
            throw new IllegalStateException("second");
        });
        CommunicatorAttributes attributes = new CommunicatorAttributes();
        attributes.set(null, plain, "p");
        attributes.set(null, alsoFailing, "s");
        attributes.set(null, failing, "f");
        LockstepException thrown = assertThrows(LockstepException.class, () -> attributes.deleteAll(null));
        assertSame(first, thrown);
        assertEquals(1, thrown.getSuppressed().length);
        assertEquals(ErrorClass.KEYVAL, ((LockstepException) thrown.getSuppressed()[0]).errorClass(),
                "a deleter's untyped exception becomes a KEYVAL error");
        assertEquals(List.of("f", "s", "p"), deleted);
        assertTrue(attributes.isEmpty(), "every value is gone, whichever deleters failed");
    }

    @Test
    void aCopierThatAnswersNullIsAKeyvalErrorAndNullKeysOrValuesAreArgumentErrors() {
        Keyval<String> broken = Keyval.create((original, v) -> null, Keyval.nothingOnDelete());
        CommunicatorAttributes attributes = new CommunicatorAttributes();
        attributes.set(null, broken, "x");
        LockstepException e = assertThrows(LockstepException.class, () -> attributes.copyInto(null, new CommunicatorAttributes()));
        assertEquals(ErrorClass.KEYVAL, e.errorClass());
        assertEquals(ErrorClass.ARG, assertThrows(LockstepException.class, () -> attributes.set(null, broken, null)).errorClass());
        assertEquals(ErrorClass.ARG, assertThrows(LockstepException.class, () -> attributes.get(null)).errorClass());
        assertEquals(Optional.of("x"), attributes.get(broken));
    }
}
