package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

/** A job's options: counts that must be positive are errors naming the key, what it counts and the value. */
class JobOptionsTest {
    private static final String KEY = "lockstep.example.ranks";

    @Test
    void aPositiveCountIsReadWithSpacesTrimmed() {
        assertEquals(OptionalInt.of(3), JobOptions.ofRanks(2).with(KEY, " 3 ").positiveIntProperty(KEY, "ranks"));
    }

    @Test
    void anUnsetCountIsEmpty() {
        assertTrue(JobOptions.ofRanks(2).positiveIntProperty(KEY, "ranks").isEmpty());
    }

    @Test
    void zeroNegativeAndNonNumbersAreArgErrorsNamingTheKeyAndTheValue() {
        for (String bad : new String[] {"0", "-2", "two", "4k", ""}) {
            JobOptions options = JobOptions.ofRanks(2).with(KEY, bad);
            LockstepException e = assertThrows(LockstepException.class, () -> options.positiveIntProperty(KEY, "ranks per host"));
            assertEquals(ErrorClass.ARG, e.errorClass(), bad);
            assertTrue(e.getMessage().endsWith(KEY + " must be a number of ranks per host (at least 1), got '" + bad + "'"), e.getMessage());
        }
    }
}
