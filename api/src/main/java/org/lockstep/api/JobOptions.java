package org.lockstep.api;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * How to run a job: the number of ranks and provider settings as string properties
 * (for example {@code lockstep.device=emulated}, {@code lockstep.mailbox.inlineThreshold=1024}).
 * Immutable; the {@code with} methods return a copy.
 */
public record JobOptions(int ranks, Map<String, String> properties) {
    public JobOptions {
        if (ranks < 1) {
            throw new LockstepException(ErrorClass.ARG, "a job needs at least one rank, got " + ranks);
        }
        properties = Map.copyOf(properties);
    }

    public static JobOptions ofRanks(int ranks) {
        return new JobOptions(ranks, Map.of());
    }

    public JobOptions with(String key, String value) {
        Map<String, String> copy = new TreeMap<>(properties);
        copy.put(key, value);
        return new JobOptions(ranks, copy);
    }

    public Optional<String> property(String key) {
        return Optional.ofNullable(properties.get(key));
    }

    /** A long-valued property, with {@code k}, {@code m} and {@code g} suffixes for binary multiples. */
    public long longProperty(String key, long defaultValue) {
        String value = properties.get(key);
        return value == null ? defaultValue : Sizes.parse(key, value);
    }

    /** A count of at least 1 ({@code counting} names what it counts, for the error), if set; see {@link #positiveInt}. */
    public OptionalInt positiveIntProperty(String key, String counting) {
        String value = properties.get(key);
        return value == null ? OptionalInt.empty() : OptionalInt.of(positiveInt(key, value, counting));
    }

    /**
     * {@code value}, the setting of {@code key}, as a whole number of at least 1; anything else is an
     * {@link ErrorClass#ARG} error naming the key, what it counts and the value given.
     */
    public static int positiveInt(String key, String value, String counting) {
        int count;
        try {
            count = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            count = 0;
        }
        if (count < 1) {
            throw new LockstepException(ErrorClass.ARG, key + " must be a number of " + counting + " (at least 1), got '" + value + "'");
        }
        return count;
    }
}
