package mpi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * Caching of attributes on communicators, datatypes and windows ({@code MPI_*_set_attr}). As in
 * the Open MPI bindings, a value is stored serialized, so {@code getAttr} returns a copy and a
 * duplicated object gets copies of its attributes. Keys are per kind of object and per rank. A
 * freed key stays usable on the objects that still hold a value for it and is never handed out
 * again: MPI frees a key in use only once no object refers to it (MPI 4.1 §7.7.2).
 */
final class Attributes {
    enum Kind { COMM, DATATYPE, WIN }

    /** The first key {@code createKeyval} hands out; below it are the predefined ones ({@code MPI.TAG_UB} ...). */
    private static final int FIRST_USER_KEYVAL = 64;
    private static final Map<Kind, BitSet> LIVE_KEYVALS = new EnumMap<>(Kind.class);
    private static final Map<Kind, BitSet> FREED_KEYVALS = new EnumMap<>(Kind.class);

    private final Kind kind;
    private final Map<Integer, byte[]> values = new HashMap<>();

    Attributes(Kind kind) {
        this.kind = kind;
    }

    static synchronized int createKeyval(Kind kind) {
        BitSet taken = (BitSet) keyvals(LIVE_KEYVALS, kind).clone();
        taken.or(keyvals(FREED_KEYVALS, kind));
        int key = taken.nextClearBit(FIRST_USER_KEYVAL);
        keyvals(LIVE_KEYVALS, kind).set(key);
        return key;
    }

    static synchronized void freeKeyval(Kind kind, int keyval, String call) throws MPIException {
        BitSet live = keyvals(LIVE_KEYVALS, kind);
        if (keyval < FIRST_USER_KEYVAL || !live.get(keyval)) {
            throw ErrorClasses.argument(ErrorClasses.KEYVAL, call, "no such attribute key " + keyval);
        }
        live.clear(keyval);
        keyvals(FREED_KEYVALS, kind).set(keyval);
    }

    private static BitSet keyvals(Map<Kind, BitSet> keyvals, Kind kind) {
        return keyvals.computeIfAbsent(kind, k -> new BitSet());
    }

    /** A live key, or a freed one this object still holds a value for. */
    private void checkUsable(int keyval, String call) throws MPIException {
        boolean usable = false;
        if (keyval >= 0) { // MPI.KEYVAL_INVALID (-1) and other negative keys name nothing
            synchronized (Attributes.class) {
                usable = keyvals(LIVE_KEYVALS, kind).get(keyval) || keyvals(FREED_KEYVALS, kind).get(keyval) && values.containsKey(keyval);
            }
        }
        if (!usable) {
            throw ErrorClasses.argument(ErrorClasses.KEYVAL, call, "no such attribute key " + keyval);
        }
    }

    synchronized void set(int keyval, Object value, String call) throws MPIException {
        checkUsable(keyval, call);
        values.put(keyval, serialize(value, call));
    }

    synchronized Object get(int keyval, String call) throws MPIException {
        checkUsable(keyval, call);
        byte[] bytes = values.get(keyval);
        return bytes == null ? null : deserialize(bytes, call);
    }

    synchronized void delete(int keyval, String call) throws MPIException {
        checkUsable(keyval, call);
        values.remove(keyval);
    }

    /** Copies every attribute to {@code target}, as duplicating the object does. */
    synchronized void copyTo(Attributes target) {
        synchronized (target) {
            target.values.putAll(values);
        }
    }

    private static byte[] serialize(Object value, String call) throws MPIException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        } catch (IOException e) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "an attribute value must be serializable: " + e);
        }
        return bytes.toByteArray();
    }

    private static Object deserialize(byte[] bytes, String call) throws MPIException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw ErrorClasses.argument(ErrorClasses.INTERN, call, "cannot read the attribute back: " + e);
        }
    }
}
