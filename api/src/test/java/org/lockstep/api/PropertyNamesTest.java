package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** A {@code lockstep.*} property no one reads is an error naming the nearest known one. */
class PropertyNamesTest {
    /** A provider that reads two properties and a family. */
    private static final LockstepProvider READER = new LockstepProvider() {
        @Override
        public String name() {
            return "reader";
        }

        @Override
        public String description() {
            return "test";
        }

        @Override
        public void runInThreads(JobOptions options, RankProgram program) {
        }

        @Override
        public Set<String> propertyNames() {
            return Set.of("lockstep.mailbox.slots", "lockstep.mailbox.heapPerRank", "lockstep.device.option.*");
        }
    };

    /** A provider that declares nothing: its own family is known. */
    private static final LockstepProvider QUIET = new LockstepProvider() {
        @Override
        public String name() {
            return "quiet";
        }

        @Override
        public String description() {
            return "test";
        }

        @Override
        public void runInThreads(JobOptions options, RankProgram program) {
        }
    };

    private final PropertyNames names = new PropertyNames(List.of(READER, QUIET));

    @Test
    void aMisspeltPropertyNamesTheNearestKnownOne() {
        LockstepException e = assertThrows(LockstepException.class,
                () -> names.check(JobOptions.ofRanks(2).with("lockstep.mailbox.slotz", "4")));
        assertEquals(ErrorClass.ARG, e.errorClass());
        assertTrue(e.getMessage().contains("'lockstep.mailbox.slotz'") && e.getMessage().contains("did you mean lockstep.mailbox.slots?"),
                e.getMessage());
    }

    @Test
    void aPropertyFarFromEveryKnownOneIsRefusedWithoutAGuess() {
        LockstepException e = assertThrows(LockstepException.class,
                () -> names.check(JobOptions.ofRanks(2).with("lockstep.completely.different", "1")));
        assertTrue(!e.getMessage().contains("did you mean") && e.getMessage().contains("no installed provider reads it"), e.getMessage());
    }

    @Test
    void knownNamesFamiliesOwnPropertiesAndOtherNamespacesPass() {
        assertDoesNotThrow(() -> names.check(JobOptions.ofRanks(2)
                .with("lockstep.mailbox.slots", "4")
                .with("lockstep.device.option.latency", "5us")
                .with("lockstep.quiet.anything", "x")
                .with(Lockstep.PROVIDER_PROPERTY, "reader")
                .with(Checkpoints.ENABLED_PROPERTY, "true")
                .with("other.namespace.key", "kept for whoever reads it")));
    }

    @Test
    void distanceCountsEdits() {
        assertEquals(0, PropertyNames.distance("abc", "ABC"));
        assertEquals(1, PropertyNames.distance("slots", "slotz"));
        assertEquals(2, PropertyNames.distance("heapPerRank", "hepPerRnk"));
    }
}
