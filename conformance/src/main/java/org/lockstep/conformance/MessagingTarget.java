package org.lockstep.conformance;

import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepProvider;

/**
 * A messaging provider under test: the provider, what it declares, and the job options of a world
 * of a given rank count (for the mailbox transport: which device, which threshold, how many slots).
 *
 * @param name         how reports name it
 * @param provider     the provider
 * @param capabilities what it declares
 * @param options      the job options of a world of that many ranks
 */
public record MessagingTarget(String name, LockstepProvider provider, Capabilities capabilities, IntFunction<JobOptions> options) {
    public MessagingTarget {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(capabilities, "capabilities");
        Objects.requireNonNull(options, "options");
    }

    /** A target whose worlds need no properties beyond the rank count. */
    public static MessagingTarget of(LockstepProvider provider, Capabilities capabilities) {
        return new MessagingTarget(provider.name(), provider, capabilities, JobOptions::ofRanks);
    }

    /** The job options of a world of {@code ranks} ranks. */
    public JobOptions jobOptions(int ranks) {
        JobOptions o = options.apply(ranks);
        if (o.ranks() != ranks) {
            throw new IllegalStateException("job options for " + ranks + " ranks name " + o.ranks());
        }
        return o;
    }

    /** The same target run by another provider (a decorated or deliberately broken one). */
    public MessagingTarget withProvider(String newName, LockstepProvider newProvider) {
        return new MessagingTarget(newName, newProvider, capabilities, options);
    }

    /** The same target with every world's options changed by {@code change}. */
    public MessagingTarget withOptions(UnaryOperator<JobOptions> change) {
        return new MessagingTarget(name, provider, capabilities, ranks -> change.apply(options.apply(ranks)));
    }
}
