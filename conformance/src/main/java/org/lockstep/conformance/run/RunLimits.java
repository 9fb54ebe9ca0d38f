package org.lockstep.conformance.run;

import java.time.Duration;
import java.util.Objects;

import org.lockstep.conformance.RunSettings;

/**
 * The limits of one world run.
 *
 * @param deadline     the longest the world may run
 * @param stallTimeout how long every unfinished rank may be blocked with no operation completing
 *                     anywhere before the run counts as deadlocked
 * @param drain        whether each rank, after its body, exchanges an end marker with every other
 *                     rank and receives every message still addressed to it (so leftovers show)
 */
public record RunLimits(Duration deadline, Duration stallTimeout, boolean drain) {
    public RunLimits {
        Objects.requireNonNull(deadline, "deadline");
        Objects.requireNonNull(stallTimeout, "stallTimeout");
    }

    public static RunLimits of(RunSettings settings) {
        return new RunLimits(settings.runDeadline(), settings.stallTimeout(), true);
    }

    public RunLimits withoutDrain() {
        return new RunLimits(deadline, stallTimeout, false);
    }

    public RunLimits withDeadline(Duration newDeadline) {
        return new RunLimits(newDeadline, stallTimeout, drain);
    }
}
