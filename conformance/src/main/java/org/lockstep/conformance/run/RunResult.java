package org.lockstep.conformance.run;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import org.lockstep.conformance.RuleViolation;

/**
 * How a world run ended.
 *
 * @param ranks     rank count
 * @param elapsed   wall time
 * @param failures  ranks that threw, root causes first (failures that only report another rank's are last)
 * @param hang      why and where the run was stopped, if it was
 * @param leftovers messages nobody received, found by the end-of-run exchange
 * @param leaked    whether some rank thread was still stuck in the provider when the runner gave up on it
 */
public record RunResult(int ranks, Duration elapsed, List<RankFailure> failures, Optional<HangReport> hang,
                        List<Leftover> leftovers, boolean leaked) {
    public boolean ok() {
        return failures.isEmpty() && hang.isEmpty() && leftovers.isEmpty();
    }

    /** The first failure that is not only a consequence of another, if any. */
    public Optional<RankFailure> rootFailure() {
        return failures.stream().filter(f -> !f.isConsequence()).findFirst().or(() -> failures.stream().findFirst());
    }

    /** Throws a {@link RuleViolation} that says what went wrong, unless the run was clean. */
    public void requireOk(String what) {
        if (ok()) {
            return;
        }
        if (hang.isPresent()) {
            throw new RuleViolation(what + ": " + hang.get().reason() + (leaked ? " (a rank thread stayed stuck in the provider)" : ""),
                    hang.get().toString());
        }
        Optional<RankFailure> root = rootFailure();
        if (root.isPresent()) {
            Throwable cause = root.get().cause();
            String others = failures.size() > 1 ? failures.stream().filter(f -> f != root.get()).map(RankFailure::toString)
                    .collect(Collectors.joining("\n")) : "";
            throw new RuleViolation(what + ": " + root.get(), others, java.util.OptionalLong.empty(),
                    cause instanceof RuleViolation ? null : cause);
        }
        throw new RuleViolation(what + ": " + leftovers.size() + " message(s) were never received: "
                + leftovers.stream().limit(5).map(Leftover::toString).collect(Collectors.joining("; ")));
    }
}
