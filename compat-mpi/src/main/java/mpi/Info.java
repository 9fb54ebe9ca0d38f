package mpi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hints as ordered (key, value) strings ({@code MPI_Info}): the bindings' mutable object, whose
 * value a communicator takes as Lockstep's immutable {@link org.lockstep.api.Info} (no provider
 * acts on a hint yet; they are kept, copied and listed as MPI says).
 */
public final class Info implements Freeable, Cloneable {
    private final Map<String, String> entries = new LinkedHashMap<>();
    private final boolean isNullInfo;
    private boolean freed;

    /** An empty info object ({@code MPI_Info_create}). */
    public Info() throws MPIException {
        this(false);
    }

    private Info(boolean isNullInfo) {
        this.isNullInfo = isNullInfo;
    }

    /** {@code MPI.INFO_NULL}. */
    static Info nullInfo() {
        return new Info(true);
    }

    /** {@code MPI.INFO_ENV}: how this process was started (Lockstep's environment; the rest at {@code MPI.Init}). */
    static Info environment() {
        Info env = new Info(false);
        env.entries.putAll(org.lockstep.api.Environment.info().asMap());
        return env;
    }

    /**
     * What {@code MPI.INFO_ENV} learns at {@code MPI.Init}: the program's command, which for Java
     * is its main class, as Open MPI's bindings give it (the class whose code called Init), its
     * arguments as {@code argv} (space separated, as MPI 4.1 defines the key; absent without
     * arguments, as Open MPI leaves it), and the processes started, as MPI's {@code maxprocs} and
     * Open MPI's {@code ompi_np} (one application, first rank 0: {@code ompi_num_apps},
     * {@code ompi_first_rank}).
     */
    void started(String command, String[] arguments, int processes) {
        entries.put("command", command);
        if (arguments != null && arguments.length > 0) {
            entries.put("argv", String.join(" ", arguments));
        } else {
            entries.remove("argv");
        }
        entries.put("maxprocs", Integer.toString(processes));
        entries.put("ompi_np", Integer.toString(processes));
        entries.put("ompi_num_apps", "1");
        entries.put("ompi_first_rank", "0");
    }

    /** Lockstep's hints of the same keys and values; none for null. */
    static org.lockstep.api.Info toHints(Info info) {
        return info == null || info.isNull() ? org.lockstep.api.Info.EMPTY : org.lockstep.api.Info.of(info.entries);
    }

    /** A new info object of Lockstep's hints. */
    static Info ofHints(org.lockstep.api.Info hints) {
        Info info = new Info(false);
        info.entries.putAll(hints.asMap());
        return info;
    }

    private void check(String call) throws MPIException {
        if (isNullInfo || freed) {
            throw ErrorClasses.argument(ErrorClasses.INFO, call, isNullInfo ? "MPI.INFO_NULL holds nothing" : "the info object was freed");
        }
    }

    private static void checkKey(String call, String key) throws MPIException {
        if (key == null || key.isEmpty() || key.length() > MPI.MAX_INFO_KEY) {
            throw ErrorClasses.argument(ErrorClasses.INFO_KEY, call, "an info key must have 1 to " + MPI.MAX_INFO_KEY + " characters: '" + key + "'");
        }
    }

    /** Adds or replaces a hint ({@code MPI_Info_set}). */
    public void set(String key, String value) throws MPIException {
        check("Info.set");
        checkKey("Info.set", key);
        if (value == null || value.length() > MPI.MAX_INFO_VAL) {
            throw ErrorClasses.argument(ErrorClasses.INFO_VALUE, "Info.set", "an info value must have at most " + MPI.MAX_INFO_VAL + " characters");
        }
        entries.put(key, value);
    }

    /** The value of {@code key}, or null ({@code MPI_Info_get}). */
    public String get(String key) throws MPIException {
        check("Info.get");
        checkKey("Info.get", key);
        return entries.get(key);
    }

    /** Removes {@code key}, which must be present ({@code MPI_Info_delete}). */
    public void delete(String key) throws MPIException {
        check("Info.delete");
        checkKey("Info.delete", key);
        if (entries.remove(key) == null) {
            throw ErrorClasses.argument(ErrorClasses.INFO_NOKEY, "Info.delete", "no key '" + key + "'");
        }
    }

    /** Number of keys ({@code MPI_Info_get_nkeys}). */
    public int size() throws MPIException {
        check("Info.size");
        return entries.size();
    }

    /** The {@code i}-th key ({@code MPI_Info_get_nthkey}). */
    public String getKey(int i) throws MPIException {
        check("Info.getKey");
        List<String> keys = new ArrayList<>(entries.keySet());
        if (i < 0 || i >= keys.size()) {
            throw ErrorClasses.argument(ErrorClasses.ARG, "Info.getKey", "no key number " + i + " of " + keys.size());
        }
        return keys.get(i);
    }

    @Override
    public Info clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A copy ({@code MPI_Info_dup}). */
    public Info dup() throws MPIException {
        check("Info.dup");
        Info copy = new Info(false);
        copy.entries.putAll(entries);
        return copy;
    }

    /** Frees the object ({@code MPI_Info_free}). */
    @Override
    public void free() throws MPIException {
        check("Info.free");
        freed = true;
        entries.clear();
    }

    /** Whether this is {@code MPI.INFO_NULL} or was freed. */
    public boolean isNull() {
        return isNullInfo || freed;
    }
}
