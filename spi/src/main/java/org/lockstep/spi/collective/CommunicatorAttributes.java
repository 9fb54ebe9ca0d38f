package org.lockstep.spi.collective;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Keyval;
import org.lockstep.api.LockstepException;

/**
 * The attributes one communicator holds (MPI 4.1 §7.7): values by {@link Keyval}, in the order
 * they were set, and what the keys' callbacks do with them when the communicator is duplicated,
 * a value replaced or deleted, and the communicator closed. One rank's, used from one thread at a
 * time like its communicator.
 */
final class CommunicatorAttributes {
    private final Map<Keyval<?>, Object> values = new LinkedHashMap<>();

    boolean isEmpty() {
        return values.isEmpty();
    }

    /** {@link Communicator#setAttribute}: the old value goes to the deleter first, and stays if it throws. */
    <T> void set(Communicator owner, Keyval<T> key, T value) {
        if (key == null || value == null) {
            throw new LockstepException(ErrorClass.ARG, "setAttribute needs a key and a value (" + (key == null ? "key" : "value")
                    + " is null)");
        }
        if (key.isFreed()) {
            throw new LockstepException(ErrorClass.KEYVAL, "setAttribute with a freed keyval");
        }
        refusePredefined(key, "setAttribute");
        delete(owner, key);
        values.put(key, value);
    }

    /** {@link Communicator#attribute}. */
    <T> Optional<T> get(Keyval<T> key) {
        if (key == null) {
            throw new LockstepException(ErrorClass.ARG, "attribute needs a key");
        }
        @SuppressWarnings("unchecked") // only set() puts values, under a key of their type
        T value = (T) values.get(key);
        return Optional.ofNullable(value);
    }

    /** {@link Communicator#deleteAttribute}: the value goes to the deleter, and stays if it throws. */
    void delete(Communicator owner, Keyval<?> key) {
        if (key == null) {
            throw new LockstepException(ErrorClass.ARG, "deleteAttribute needs a key");
        }
        refusePredefined(key, "deleteAttribute");
        if (values.containsKey(key)) {
            handToDeleter(owner, key, values.get(key));
            values.remove(key);
        }
    }

    /** MPI's predefined attributes are the communicator's to answer, a program's to read only. */
    private static void refusePredefined(Keyval<?> key, String call) {
        if (key.isPredefined()) {
            throw new LockstepException(ErrorClass.KEYVAL, call + " with " + key + ", a predefined attribute, which programs only read");
        }
    }

    /** What {@code copy}, a duplicate of {@code owner}, holds: each copier's answer, in the order the values were set. */
    void copyInto(Communicator owner, CommunicatorAttributes copy) {
        for (Map.Entry<Keyval<?>, Object> e : values.entrySet()) {
            copied(owner, e.getKey(), e.getValue()).ifPresent(v -> copy.values.put(e.getKey(), v));
        }
    }

    /**
     * Hands every value to its deleter, latest set first ({@link Communicator#close}); all of them
     * run, and the first exception is thrown after the last.
     */
    void deleteAll(Communicator owner) {
        List<Map.Entry<Keyval<?>, Object>> latestFirst = new ArrayList<>(values.entrySet()).reversed();
        values.clear();
        LockstepException first = null;
        for (Map.Entry<Keyval<?>, Object> e : latestFirst) {
            try {
                handToDeleter(owner, e.getKey(), e.getValue());
            } catch (RuntimeException failure) {
                LockstepException typed = failure instanceof LockstepException l ? l
                        : new LockstepException(ErrorClass.KEYVAL, "an attribute's deleter failed while the communicator closed: " + failure);
                if (first == null) {
                    first = typed;
                } else {
                    first.addSuppressed(typed);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @SuppressWarnings("unchecked") // the value was set under this key, so it has the key's type
    private static <T> Optional<Object> copied(Communicator owner, Keyval<T> key, Object value) {
        return key.copy(owner, (T) value).map(v -> v);
    }

    @SuppressWarnings("unchecked") // the value was set under this key, so it has the key's type
    private static <T> void handToDeleter(Communicator owner, Keyval<T> key, Object value) {
        key.delete(owner, (T) value);
    }
}
