package org.lockstep.spi.collective;

import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Keyval;

/**
 * What a communicator answers for MPI's predefined attributes (MPI 4.1 §9.1.1, §11.10): the
 * provider's tag bound, universe size and clock by its hooks, the rest the same for every
 * provider — no host process, every rank can do I/O, one program.
 */
final class PredefinedAttributes {
    private PredefinedAttributes() {
    }

    @SuppressWarnings("unchecked") // each predefined key's type is the type of the value answered for it
    static <T> Optional<T> of(Keyval<T> key, CommunicatorHooks communicator) {
        Object value;
        if (key == Keyval.TAG_UB) {
            value = communicator.implTagUpperBound();
        } else if (key == Keyval.HOST) {
            value = Communicator.PROC_NULL;
        } else if (key == Keyval.IO) {
            value = Communicator.ANY_SOURCE;
        } else if (key == Keyval.WTIME_IS_GLOBAL) {
            value = communicator.implWtimeIsGlobal();
        } else if (key == Keyval.UNIVERSE_SIZE) {
            int universe = communicator.implUniverseSize();
            value = universe < 0 ? null : universe;
        } else if (key == Keyval.APPNUM) {
            value = 0;
        } else {
            throw new IllegalStateException("no answer for the predefined " + key);
        }
        return Optional.ofNullable((T) value);
    }
}
