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
 * <p>Derived datatypes ({@code createVector} and the other constructors) need the derived
 * datatypes of Lockstep's API, which are not there yet: they throw an {@link MPIException} of
 * class {@link MPI#ERR_UNSUPPORTED_OPERATION}.
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

    private static final String DERIVED = "derived datatypes need Lockstep's API for them (issue 15), which has not landed yet";

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
    private String name;
    private boolean freed;
    private final Attributes attributes = new Attributes(Attributes.Kind.DATATYPE);

    private Datatype(int kind, int baseType, int baseSize, org.lockstep.api.Datatype wire, int wirePerElement, String name) {
        this.kind = kind;
        this.baseType = baseType;
        this.baseSize = baseSize;
        this.wire = wire;
        this.wirePerElement = wirePerElement;
        this.name = name;
    }

    /** A predefined type whose base is itself. */
    static Datatype primitive(int kind, org.lockstep.api.Datatype wire, String name) {
        return new Datatype(kind, kind, (int) wire.size(), wire, 1, name);
    }

    /** A predefined type with base {@code base}, carried as {@code wirePerElement} of {@code wire}. */
    static Datatype predefined(int kind, int base, int baseSize, org.lockstep.api.Datatype wire, int wirePerElement, String name) {
        return new Datatype(kind, base, baseSize, wire, wirePerElement, name);
    }

    /** {@code MPI.DATATYPE_NULL}. */
    static Datatype nullType() {
        return new Datatype(NULL, NULL, 1, null, 0, "MPI_DATATYPE_NULL");
    }

    /** Bytes of one element. */
    long byteSize() {
        return wire == null ? 0 : wire.size() * wirePerElement;
    }

    /** Lockstep elements in {@code count} elements of this type, with the checks MPI makes. */
    long wireCount(String call, int count) throws MPIException {
        if (wire == null || freed) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, freed ? "the datatype " + name + " was freed" : "MPI.DATATYPE_NULL is not a datatype to send");
        }
        if (count < 0) {
            throw ErrorClasses.argument(ErrorClasses.COUNT, call, "negative count " + count);
        }
        return (long) count * wirePerElement;
    }

    /** Lower bound in base elements ({@code MPI_Type_get_extent}). */
    public int getLb() throws MPIException {
        MPI.check();
        return 0;
    }

    /** Extent in base elements ({@code MPI_Type_get_extent}). */
    public int getExtent() throws MPIException {
        MPI.check();
        return (int) (byteSize() / baseSize);
    }

    /** True lower bound in base elements ({@code MPI_Type_get_true_extent}). */
    public int getTrueLb() throws MPIException {
        MPI.check();
        return 0;
    }

    /** True extent in base elements ({@code MPI_Type_get_true_extent}). */
    public int getTrueExtent() throws MPIException {
        return getExtent();
    }

    /** Size in base elements: the data in one element, without gaps ({@code MPI_Type_size}). */
    public int getSize() throws MPIException {
        return getExtent();
    }

    /** Commits the type for use in communication ({@code MPI_Type_commit}); predefined types are committed already. */
    public void commit() throws MPIException {
        MPI.check();
    }

    /** Frees the type ({@code MPI_Type_free}); freeing a predefined type is an error. */
    @Override
    public void free() throws MPIException {
        MPI.check();
        throw ErrorClasses.argument(ErrorClasses.TYPE, "Datatype.free", "cannot free the predefined datatype " + name);
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

    /** A copy of this type ({@code MPI_Type_dup}). */
    public Datatype dup() throws MPIException {
        MPI.check();
        Datatype copy = new Datatype(kind, baseType, baseSize, wire, wirePerElement, name);
        attributes.copyTo(copy.attributes);
        return copy;
    }

    /** {@code count} copies of {@code oldType} side by side ({@code MPI_Type_contiguous}). */
    public static Datatype createContiguous(int count, Datatype oldType) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Datatype.createContiguous", DERIVED);
    }

    /** Blocks of {@code blockLength} elements, {@code stride} elements apart ({@code MPI_Type_vector}). */
    public static Datatype createVector(int count, int blockLength, int stride, Datatype oldType) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Datatype.createVector", DERIVED);
    }

    /** As {@link #createVector} with the stride in bytes ({@code MPI_Type_create_hvector}). */
    public static Datatype createHVector(int count, int blockLength, int stride, Datatype oldType) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Datatype.createHVector", DERIVED);
    }

    /** Blocks of the given lengths at the given displacements, in elements ({@code MPI_Type_indexed}). */
    public static Datatype createIndexed(int[] blockLengths, int[] displacements, Datatype oldType) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Datatype.createIndexed", DERIVED);
    }

    /** As {@link #createIndexed} with displacements in bytes ({@code MPI_Type_create_hindexed}). */
    public static Datatype createHIndexed(int[] blockLengths, int[] displacements, Datatype oldType) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Datatype.createHIndexed", DERIVED);
    }

    /** Blocks of several types at byte displacements ({@code MPI_Type_create_struct}). */
    public static Datatype createStruct(int[] blockLengths, int[] displacements, Datatype[] types) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Datatype.createStruct", DERIVED);
    }

    /** {@code oldType} with a new lower bound and extent ({@code MPI_Type_create_resized}). */
    public static Datatype createResized(Datatype oldType, int lb, int extent) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Datatype.createResized", DERIVED);
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
