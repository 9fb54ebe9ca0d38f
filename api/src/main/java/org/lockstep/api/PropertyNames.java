package org.lockstep.api;

import java.util.Collection;
import java.util.Comparator;
import java.util.Set;
import java.util.TreeSet;

/**
 * The job properties that Lockstep and its installed providers read, so that a misspelt
 * {@value Lockstep#PROPERTY_PREFIX}{@code *} property fails with the nearest known name instead of
 * being ignored. A name ending in {@code .*} stands for every property under it.
 */
final class PropertyNames {
    /**
     * The properties Lockstep itself reads (provider choice and the checkpoint contract), and the
     * conformance kit's family ({@code lockstep.tck.seed} is a system property of a kit run).
     */
    static final Set<String> OWN = Set.of(Lockstep.PROVIDER_PROPERTY, Checkpoints.ENABLED_PROPERTY, Checkpoints.STATE_BYTES_PROPERTY,
            Checkpoints.RESTART_ON_FAILURE_PROPERTY, Checkpoints.RESTART_TIMEOUT_PROPERTY, Lockstep.STACK_TRACES_PROPERTY, "lockstep.tck.*");
    private static final String FAMILY = ".*";

    private final Set<String> names = new TreeSet<>();

    PropertyNames(Collection<LockstepProvider> providers) {
        names.addAll(OWN);
        providers.forEach(p -> names.addAll(p.propertyNames()));
    }

    /** Throws {@link ErrorClass#ARG} for the first {@value Lockstep#PROPERTY_PREFIX} key that no one reads. */
    void check(JobOptions options) {
        for (String key : new TreeSet<>(options.properties().keySet())) {
            if (key.startsWith(Lockstep.PROPERTY_PREFIX) && !known(key)) {
                throw new LockstepException(ErrorClass.ARG, "unknown job property '" + key + "'" + suggestion(key)
                        + "; no installed provider reads it");
            }
        }
    }

    boolean known(String key) {
        if (names.contains(key)) {
            return true;
        }
        for (String name : names) {
            if (name.endsWith(FAMILY) && key.startsWith(name.substring(0, name.length() - 1))) {
                return true;
            }
        }
        return false;
    }

    private String suggestion(String key) {
        String nearest = names.stream().filter(n -> !n.endsWith(FAMILY))
                .min(Comparator.comparingInt((String n) -> distance(key, n)).thenComparing(n -> n)).orElse(null);
        if (nearest == null || distance(key, nearest) > Math.max(3, nearest.length() / 3)) {
            return "";
        }
        return " (did you mean " + nearest + "?)";
    }

    /** Levenshtein distance, ignoring case. */
    static int distance(String a, String b) {
        String x = a.toLowerCase(java.util.Locale.ROOT);
        String y = b.toLowerCase(java.util.Locale.ROOT);
        int[] previous = new int[y.length() + 1];
        int[] current = new int[y.length() + 1];
        for (int j = 0; j <= y.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= x.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= y.length(); j++) {
                int substitution = previous[j - 1] + (x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[y.length()];
    }
}
