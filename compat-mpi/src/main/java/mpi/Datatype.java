package mpi;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The type of the elements of a message buffer ({@code MPI_Datatype}).
 *
 * <p>As in the Open MPI bindings, a datatype has a <em>base type</em>: the Java element type of
 * the arrays and buffers it describes. Lower bounds, extents and sizes are counted in base
 * elements ({@code MPI.INT.getExtent()} is 1; {@code MPI.DOUBLE_INT}, whose base is bytes, has
 * its extent in bytes). Messages travel as Lockstep datatypes: each datatype here names the one
 * that carries it and how many of those one element takes.
 *
 * <p>Derived datatypes ({@code createVector} and the other constructors) are Lockstep's derived
 * datatypes built over the carriers of their old types; their displacements and strides count
 * what the bindings count (old elements for vector and indexed, bytes for the {@code H} forms,
 * struct and resized), and a struct's base type is bytes, as in the bindings.
 */
public final class Datatype implements Freeable, Cloneable {
    static final int NULL = 0;
    static final int BYTE = 1;
    static final int CHAR = 2;
    static final int SHORT = 3;
    static final int BOOLEAN = 4;
    static final int INT = 5;
    static final int LONG = 6;
    static final int FLOAT = 7;
    static final int DOUBLE = 8;
    static final int PACKED = 9;
    static final int INT2 = 10;
    static final int SHORT_INT = 11;
    static final int LONG_INT = 12;
    static final int FLOAT_INT = 13;
    static final int DOUBLE_INT = 14;
    static final int FLOAT_COMPLEX = 15;
    static final int DOUBLE_COMPLEX = 16;
    /** The kind of a struct: no predefined kind of element. */
    static final int DERIVED = 17;

    /** Which predefined type this is ({@link #BYTE} ...); the kind of element an Op works on. */
    final int kind;
    /** The Java element type of buffers of this type: offsets, extents and sizes count these. */
    final int baseType;
    /** Bytes of one base element. */
    final int baseSize;
    /** The Lockstep datatype that carries this one; null for {@code DATATYPE_NULL}. */
    final org.lockstep.api.Datatype wire;
    /** Elements of {@link #wire} per element of this type. */
    final int wirePerElement;
    /** One element of this type as one Lockstep element: what derived types are built from. */
    private final org.lockstep.api.Datatype unit;
    /** Whether this is a derived type, which must be committed before use and may be freed. */
    private final boolean derived;
    /** Whether the program made this type (derived, or a duplicate of a predefined one) and so may free it. */
    private final boolean freeable;
    private String name;
    private boolean freed;
    private final Attributes attributes = new Attributes(Attributes.Kind.DATATYPE);

    private Datatype(int kind, int baseType, int baseSize, org.lockstep.api.Datatype wire, int wirePerElement, String name,
                     boolean duplicate) {
        this.kind = kind;
        this.baseType = baseType;
        this.baseSize = baseSize;
        this.wire = wire;
        this.wirePerElement = wirePerElement;
        this.unit = wire == null || wirePerElement == 1 ? wire : org.lockstep.api.Datatype.contiguous(wirePerElement, wire).commit();
        this.derived = false;
        this.freeable = duplicate;
        this.name = name;
    }

    /** A derived type over Lockstep's {@code wire}, whose buffers hold elements of {@code base}'s base type. */
    private Datatype(int kind, Datatype base, org.lockstep.api.Datatype wire, String name) {
        this.kind = kind;
        this.baseType = base.baseType;
        this.baseSize = base.baseSize;
        this.wire = wire;
        this.wirePerElement = 1;
        this.unit = wire;
        this.derived = true;
        this.freeable = true;
        this.name = name;
    }

    /** A predefined type whose base is itself. */
    static Datatype primitive(int kind, org.lockstep.api.Datatype wire, String name) {
        return new Datatype(kind, kind, (int) wire.size(), wire, 1, name, false);
    }

    /** A predefined type with base {@code base}, carried as {@code wirePerElement} of {@code wire}. */
    static Datatype predefined(int kind, int base, int baseSize, org.lockstep.api.Datatype wire, int wirePerElement, String name) {
        return new Datatype(kind, base, baseSize, wire, wirePerElement, name, false);
    }

    /** {@code MPI.DATATYPE_NULL}. */
    static Datatype nullType() {
        return new Datatype(NULL, NULL, 1, null, 0, "MPI_DATATYPE_NULL", false);
    }

    /** Bytes of data in one element ({@code MPI_Type_size}). */
    long byteSize() {
        return wire == null ? 0 : wire.size() * wirePerElement;
    }

    /** Bytes from one element to the next ({@code MPI_Type_get_extent} in bytes). */
    long byteExtent() {
        return unit == null ? 0 : unit.extent();
    }

    /** One element as a Lockstep datatype; bytes, extent and bounds are this type's. */
    org.lockstep.api.Datatype unit() {
        return unit;
    }

    /** Lockstep elements in {@code count} elements of this type, with the checks MPI makes. */
    long wireCount(String call, int count) throws MPIException {
        if (wire == null || freed) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, freed ? "the datatype " + name + " was freed" : "MPI.DATATYPE_NULL is not a datatype to send");
        }
        if (derived && !wire.isCommitted()) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "the datatype " + name + " is not committed (call commit() first)");
        }
        if (count < 0) {
            throw ErrorClasses.argument(ErrorClasses.COUNT, call, "negative count " + count);
        }
        return (long) count * wirePerElement;
    }

    /** Lower bound in base elements ({@code MPI_Type_get_extent}). */
    public int getLb() throws MPIException {
        MPI.check();
        return inBaseElements(unit == null ? 0 : unit.lowerBound());
    }

    /** Extent in base elements ({@code MPI_Type_get_extent}). */
    public int getExtent() throws MPIException {
        MPI.check();
        return inBaseElements(unit == null ? 0 : unit.extent());
    }

    /** True lower bound in base elements ({@code MPI_Type_get_true_extent}). */
    public int getTrueLb() throws MPIException {
        MPI.check();
        return inBaseElements(unit == null ? 0 : unit.trueLowerBound());
    }

    /** True extent in base elements ({@code MPI_Type_get_true_extent}). */
    public int getTrueExtent() throws MPIException {
        MPI.check();
        return inBaseElements(unit == null ? 0 : unit.trueExtent());
    }

    /** Size in base elements: the data in one element, without gaps ({@code MPI_Type_size}). */
    public int getSize() throws MPIException {
        MPI.check();
        return inBaseElements(byteSize());
    }

    /** Bytes in base elements, rounded towards zero as the bindings divide. */
    private int inBaseElements(long bytes) {
        return (int) (bytes / baseSize);
    }

    /** Commits the type for use in communication ({@code MPI_Type_commit}); predefined types are committed already. */
    public void commit() throws MPIException {
        MPI.check();
        if (derived) {
            live("Datatype.commit").commit();
        }
    }

    /**
     * Frees the type ({@code MPI_Type_free}); types built from it keep working. Freeing a predefined
     * type is an error; its duplicate ({@link #dup}, {@link #clone}) is the program's to free.
     */
    @Override
    public void free() throws MPIException {
        MPI.check();
        if (!freeable) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, "Datatype.free", "cannot free the predefined datatype " + name);
        }
        org.lockstep.api.Datatype own = live("Datatype.free");
        if (derived) {
            own.free(); // a predefined type's duplicate shares its Lockstep type, which stays
        }
        freed = true;
    }

    private org.lockstep.api.Datatype live(String call) throws MPIException {
        if (freed) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "the datatype " + name + " was freed");
        }
        return wire;
    }

    /** Whether this is {@code MPI.DATATYPE_NULL}. */
    public boolean isNull() {
        return wire == null || freed;
    }

    @Override
    public Datatype clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A copy of this type ({@code MPI_Type_dup}): a new type, which the program frees, also of a predefined one. */
    public Datatype dup() throws MPIException {
        MPI.check();
        Datatype copy = derived ? new Datatype(kind, this, live("Datatype.dup").dup(), name)
                : new Datatype(kind, baseType, baseSize, live("Datatype.dup"), wirePerElement, name, true);
        attributes.copyTo(copy.attributes);
        return copy;
    }

    /** {@code count} copies of {@code oldType} side by side ({@code MPI_Type_contiguous}). */
    public static Datatype createContiguous(int count, Datatype oldType) throws MPIException {
        String call = "Datatype.createContiguous";
        return derive(call, oldType, oldType.kind, () -> org.lockstep.api.Datatype.contiguous(count, oldType.building(call)));
    }

    /** Blocks of {@code blockLength} elements, {@code stride} elements apart ({@code MPI_Type_vector}). */
    public static Datatype createVector(int count, int blockLength, int stride, Datatype oldType) throws MPIException {
        String call = "Datatype.createVector";
        return derive(call, oldType, oldType.kind,
                () -> org.lockstep.api.Datatype.vector(count, blockLength, stride, oldType.building(call)));
    }

    /** As {@link #createVector} with the stride in bytes ({@code MPI_Type_create_hvector}). */
    public static Datatype createHVector(int count, int blockLength, int stride, Datatype oldType) throws MPIException {
        String call = "Datatype.createHVector";
        return derive(call, oldType, oldType.kind,
                () -> org.lockstep.api.Datatype.hvector(count, blockLength, stride, oldType.building(call)));
    }

    /** Blocks of the given lengths at the given displacements, in elements ({@code MPI_Type_indexed}). */
    public static Datatype createIndexed(int[] blockLengths, int[] displacements, Datatype oldType) throws MPIException {
        String call = "Datatype.createIndexed";
        return derive(call, oldType, oldType.kind,
                () -> org.lockstep.api.Datatype.indexed(blockLengths, displacements, oldType.building(call)));
    }

    /** As {@link #createIndexed} with displacements in bytes ({@code MPI_Type_create_hindexed}). */
    public static Datatype createHIndexed(int[] blockLengths, int[] displacements, Datatype oldType) throws MPIException {
        String call = "Datatype.createHIndexed";
        return derive(call, oldType, oldType.kind,
                () -> org.lockstep.api.Datatype.hindexed(blockLengths, widen(call, displacements), oldType.building(call)));
    }

    /** Blocks of several types at byte displacements ({@code MPI_Type_create_struct}); its base type is bytes. */
    public static Datatype createStruct(int[] blockLengths, int[] displacements, Datatype[] types) throws MPIException {
        String call = "Datatype.createStruct";
        if (types == null) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "the array of types is null");
        }
        org.lockstep.api.Datatype[] units = new org.lockstep.api.Datatype[types.length];
        for (int i = 0; i < types.length; i++) {
            units[i] = types[i].building(call);
        }
        return derive(call, MPI.BYTE, DERIVED, () -> org.lockstep.api.Datatype.struct(blockLengths, widen(call, displacements), units));
    }

    /** {@code oldType} with a new lower bound and extent, both in bytes ({@code MPI_Type_create_resized}). */
    public static Datatype createResized(Datatype oldType, int lb, int extent) throws MPIException {
        String call = "Datatype.createResized";
        return derive(call, oldType, oldType.kind, () -> org.lockstep.api.Datatype.resized(oldType.building(call), lb, extent));
    }

    /** Lockstep's constructor of a derived type; it reports bad arguments as a LockstepException. */
    @FunctionalInterface
    private interface Constructor {
        org.lockstep.api.Datatype build() throws MPIException;
    }

    private static Datatype derive(String call, Datatype base, int kind, Constructor constructor) throws MPIException {
        MPI.check();
        try {
            org.lockstep.api.Datatype built = constructor.build();
            return new Datatype(kind, base, built, built.name());
        } catch (org.lockstep.api.LockstepException e) {
            throw ErrorClasses.exception(call, e);
        } catch (NullPointerException | ArrayIndexOutOfBoundsException e) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "an array argument is null or shorter than the others");
        }
    }

    /** This type as the old type of a new one: usable, not freed. */
    private org.lockstep.api.Datatype building(String call) throws MPIException {
        if (unit == null || freed) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, freed ? "the datatype " + name + " was freed"
                    : "MPI.DATATYPE_NULL cannot build a datatype");
        }
        return unit;
    }

    private static long[] widen(String call, int[] values) throws MPIException {
        if (values == null) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "an array of displacements is null");
        }
        long[] wide = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            wide[i] = values[i];
        }
        return wide;
    }

    /** Names the type ({@code MPI_Type_set_name}). */
    public void setName(String name) throws MPIException {
        MPI.check();
        this.name = name;
    }

    /** The type's name ({@code MPI_Type_get_name}). */
    public String getName() throws MPIException {
        MPI.check();
        return name;
    }

    /** A new attribute key for datatypes ({@code MPI_Type_create_keyval}). */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval(Attributes.Kind.DATATYPE);
    }

    /** Frees an attribute key ({@code MPI_Type_free_keyval}). */
    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(Attributes.Kind.DATATYPE, keyval, "Datatype.freeKeyval");
    }

    /** Stores an attribute ({@code MPI_Type_set_attr}); the value must be serializable, and is copied. */
    public void setAttr(int keyval, Object value) throws MPIException {
        MPI.check();
        attributes.set(keyval, value, "Datatype.setAttr");
    }

    /** An attribute's value, or null ({@code MPI_Type_get_attr}). */
    public Object getAttr(int keyval) throws MPIException {
        MPI.check();
        return attributes.get(keyval, "Datatype.getAttr");
    }

    /** Deletes an attribute ({@code MPI_Type_delete_attr}). */
    public void deleteAttr(int keyval) throws MPIException {
        MPI.check();
        attributes.delete(keyval, "Datatype.deleteAttr");
    }

    /** The byte offset of a non-direct buffer's first element in its backing array. */
    int getOffset(Object buffer) {
        return baseSize * ((java.nio.Buffer) buffer).arrayOffset();
    }

    @Override
    public String toString() {
        return name;
    }

    /** Whether a Lockstep error is about this layer's misuse of a type (never expected). */
    static boolean isTypeError(LockstepException e) {
        return e.errorClass() == ErrorClass.TYPE;
    }
}
