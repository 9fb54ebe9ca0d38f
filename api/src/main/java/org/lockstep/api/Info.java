package org.lockstep.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Hints as (key, value) strings ({@code MPI_Info}, MPI 4.1 §10): an immutable value, in the order
 * the keys were first set. {@link #with} and {@link #without} give new ones
 * ({@code MPI_Info_set}, {@code MPI_Info_delete}); {@link #EMPTY} is {@code MPI_INFO_NULL}'s and a
 * new {@code MPI_Info_create}'s content. Keys are at most {@link #MAX_KEY} characters, values at
 * most {@link #MAX_VALUE}; neither is empty nor null.
 */
public final class Info {
    /** {@code MPI_MAX_INFO_KEY}. */
    public static final int MAX_KEY = 255;
    /** {@code MPI_MAX_INFO_VAL}. */
    public static final int MAX_VALUE = 1024;
    /** No hints. */
    public static final Info EMPTY = new Info(Map.of());

    private final Map<String, String> entries;

    private Info(Map<String, String> entries) {
        this.entries = entries;
    }

    /** The hints of {@code entries}, in its iteration order. */
    public static Info of(Map<String, String> entries) {
        Info info = EMPTY;
        for (Map.Entry<String, String> e : entries.entrySet()) {
            info = info.with(e.getKey(), e.getValue());
        }
        return info;
    }

    /**
     * These hints with {@code key} set to {@code value} ({@code MPI_Info_set}): a key set before
     * keeps its place.
     *
     * @throws LockstepException {@link ErrorClass#INFO_KEY} for an empty, null or too long key,
     *         {@link ErrorClass#INFO_VALUE} for an empty, null or too long value
     */
    public Info with(String key, String value) {
        checkKey(key);
        if (value == null || value.isEmpty() || value.length() > MAX_VALUE) {
            throw new LockstepException(ErrorClass.INFO_VALUE, "info value for key " + key + " must have 1 to " + MAX_VALUE
                    + " characters" + (value == null ? " (it is null)" : " (it has " + value.length() + ")"));
        }
        Map<String, String> next = new LinkedHashMap<>(entries);
        next.put(key, value);
        return new Info(Collections.unmodifiableMap(next));
    }

    /**
     * These hints without {@code key} ({@code MPI_Info_delete}).
     *
     * @throws LockstepException {@link ErrorClass#INFO_NOKEY} if the key is not set,
     *         {@link ErrorClass#INFO_KEY} for an invalid key
     */
    public Info without(String key) {
        checkKey(key);
        if (!entries.containsKey(key)) {
            throw new LockstepException(ErrorClass.INFO_NOKEY, "info has no key " + key);
        }
        Map<String, String> next = new LinkedHashMap<>(entries);
        next.remove(key);
        return new Info(Collections.unmodifiableMap(next));
    }

    /** The value of {@code key}, if set ({@code MPI_Info_get_string}). */
    public Optional<String> get(String key) {
        checkKey(key);
        return Optional.ofNullable(entries.get(key));
    }

    /** The keys, in the order they were first set ({@code MPI_Info_get_nkeys}, {@code MPI_Info_get_nthkey}). */
    public List<String> keys() {
        return List.copyOf(entries.keySet());
    }

    /** The number of keys ({@code MPI_Info_get_nkeys}). */
    public int size() {
        return entries.size();
    }

    /** The hints as an unmodifiable map, in key order of first setting. */
    public Map<String, String> asMap() {
        return entries;
    }

    private static void checkKey(String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY) {
            throw new LockstepException(ErrorClass.INFO_KEY, "info key must have 1 to " + MAX_KEY + " characters"
                    + (key == null ? " (it is null)" : " (it has " + key.length() + ")"));
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Info i && List.copyOf(entries.entrySet()).equals(List.copyOf(i.entries.entrySet()));
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public String toString() {
        return "Info" + entries;
    }
}
