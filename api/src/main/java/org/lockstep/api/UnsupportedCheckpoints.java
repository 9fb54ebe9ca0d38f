package org.lockstep.api;

import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** {@link Checkpoints#unsupported()}: names are still checked, so a program's mistakes show under every provider. */
final class UnsupportedCheckpoints implements Checkpoints {
    static final Checkpoints INSTANCE = new UnsupportedCheckpoints();

    private UnsupportedCheckpoints() {
    }

    @Override
    public boolean durable() {
        return false;
    }

    @Override
    public void register(String name, MemorySegment state) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        if (name.isBlank()) {
            throw new LockstepException(ErrorClass.ARG, "a checkpointed state needs a name, got '" + name + "'");
        }
    }

    @Override
    public Optional<Restart> restart() {
        return Optional.empty();
    }

    @Override
    public long restore() {
        return 0;
    }

    @Override
    public CheckpointResult checkpoint() {
        return CheckpointResult.NOT_DURABLE;
    }

    @Override
    public String toString() {
        return "Checkpoints[unsupported: checkpoint is a no-op]";
    }
}
