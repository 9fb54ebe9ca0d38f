package org.lockstep.tools;

import java.util.List;
import java.util.Locale;

/**
 * The outcome of a soak: one entry per trial, and the closing line
 * {@code trials=N passed=M lost=L duplicated=D} (lost and duplicated summed over the trials, from
 * the workload's per-message accounting).
 */
record SoakSummary(List<Trial> trials) {
    SoakSummary {
        trials = List.copyOf(trials);
    }

    /**
     * One trial.
     *
     * @param faulted whether the fault struck (a kill that found its rank alive, a power loss before the end)
     */
    record Trial(int number, boolean passed, boolean faulted, long lost, long duplicated, String detail) {
        String line() {
            return String.format(Locale.ROOT, "trial %d: %s, %s", number, passed ? "passed" : "FAILED", detail);
        }
    }

    long passed() {
        return trials.stream().filter(Trial::passed).count();
    }

    long faulted() {
        return trials.stream().filter(Trial::faulted).count();
    }

    /** The closing line. */
    String line() {
        return String.format(Locale.ROOT, "trials=%d passed=%d lost=%d duplicated=%d", trials.size(), passed(),
                trials.stream().mapToLong(Trial::lost).sum(), trials.stream().mapToLong(Trial::duplicated).sum());
    }

    boolean allPassed() {
        return passed() == trials.size();
    }
}
