package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Map;

import org.junit.jupiter.api.Test;

class CheckpointsTest {
    @Test
    void unsupportedCheckpointIsADeclaredNoOp() {
        Checkpoints checkpoints = Checkpoints.unsupported();
        MemorySegment state = MemorySegment.ofArray(new long[] {42});
        checkpoints.register("state", state);
        assertFalse(checkpoints.durable());
        assertTrue(checkpoints.restart().isEmpty());
        assertEquals(0, checkpoints.restore());
        Checkpoints.CheckpointResult result = checkpoints.checkpoint();
        assertFalse(result.durable());
        assertEquals(0, result.epoch());
        assertEquals(42, state.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, 0), "restore must not touch the state");
        assertThrows(LockstepException.class, () -> checkpoints.register(" ", state));
    }

    @Test
    void incarnationComesFromTheLauncher() {
        assertEquals(1, LaunchEnvironment.incarnation(Map.of()));
        assertEquals(3, LaunchEnvironment.incarnation(Map.of(LaunchEnvironment.INCARNATION, "3")));
        LockstepException bad = assertThrows(LockstepException.class,
                () -> LaunchEnvironment.incarnation(Map.of(LaunchEnvironment.INCARNATION, "0")));
        assertEquals(ErrorClass.ARG, bad.errorClass());
        assertTrue(bad.getMessage().contains("'0'"));
    }
}
