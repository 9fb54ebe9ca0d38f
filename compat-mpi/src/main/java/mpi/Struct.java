package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A C-like structure laid out in a {@link ByteBuffer}: a subclass adds its fields in its
 * constructor ({@code addInt()}, {@code addDouble(3)} ...; each returns the field's byte offset),
 * implements {@link #newData()} and reads and writes an element through its {@link Data}
 * subclass. {@link #getExtent()} is the byte extent of one element, padded like a C struct to the
 * alignment of its widest field; {@link #getType()} is the matching MPI datatype.
 */
public abstract class Struct {
    private record Field(Object type, int alignment, int offset, int length) {
    }

    private final List<Field> fields = new ArrayList<>();
    int extent;
    private int alignment = 1;
    private boolean committed;
    /** For the value-index pairs: the predefined type this layout is; null for user structures. */
    private Datatype predefined;
    /** The datatype of a user structure, made on first use. */
    private Datatype type;

    /** Fixes the layout as the predefined type {@code type}, whose extent it takes. */
    final void bePredefined(Datatype type) {
        predefined = type;
    }

    private void commit() throws MPIException {
        if (!committed) {
            committed = true;
            extent = predefined != null ? (int) predefined.byteSize() : roundUp(extent, alignment);
        }
    }

    private static int roundUp(int value, int alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }

    /** Bytes from one element to the next. */
    public final int getExtent() throws MPIException {
        commit();
        return extent;
    }

    /** The MPI datatype of one element ({@code MPI_Type_create_struct} of the fields), committed as the bindings hand it out. */
    public final Datatype getType() throws MPIException {
        commit();
        if (predefined != null) {
            return predefined;
        }
        if (type == null) {
            type = structType();
            type.commit();
        }
        return type;
    }

    private Datatype structType() throws MPIException {
        int[] lengths = new int[fields.size()];
        int[] offsets = new int[fields.size()];
        Datatype[] types = new Datatype[fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            Field f = fields.get(i);
            lengths[i] = f.length;
            offsets[i] = f.offset;
            types[i] = f.type instanceof Struct s ? s.getType() : (Datatype) f.type;
        }
        return Datatype.createResized(Datatype.createStruct(lengths, offsets, types), 0, extent);
    }

    /** A new, unbound accessor of this structure's elements. */
    protected abstract Data newData();

    final <T extends Data> T newData(ByteBuffer buffer, int offset) {
        Data d = newData();
        d.buffer = buffer.duplicate().order(ByteOrder.nativeOrder());
        d.offset = offset;
        @SuppressWarnings("unchecked")
        T typed = (T) d;
        return typed;
    }

    /** The element at the start of {@code buffer}. */
    public final <T extends Data> T getData(ByteBuffer buffer) throws MPIException {
        commit();
        return newData(buffer, 0);
    }

    /** Element {@code index} of {@code buffer}. */
    public final <T extends Data> T getData(ByteBuffer buffer, int index) throws MPIException {
        commit();
        return newData(buffer, index * extent);
    }

    /** The element at the start of {@code array}. */
    public final <T extends Data> T getData(byte[] array) throws MPIException {
        return getData(ByteBuffer.wrap(array));
    }

    /** Element {@code index} of {@code array}. */
    public final <T extends Data> T getData(byte[] array, int index) throws MPIException {
        return getData(ByteBuffer.wrap(array), index);
    }

    private int addField(Object type, int size, int fieldAlignment, int length) {
        if (committed) {
            throw new IllegalStateException("the structure's layout is fixed once it has been used");
        }
        if (length < 0) {
            throw new IllegalArgumentException("a field cannot have a negative length: " + length);
        }
        int offset = roundUp(extent, fieldAlignment);
        extent = offset + size * length;
        alignment = Math.max(alignment, fieldAlignment);
        fields.add(new Field(type, fieldAlignment, offset, length));
        return offset;
    }

    /** Moves the next field to byte {@code offset}, which must not be below the fields so far. */
    public final Struct setOffset(int offset) {
        if (committed) {
            throw new IllegalStateException("the structure's layout is fixed once it has been used");
        }
        if (offset < extent) {
            throw new IllegalArgumentException("offset " + offset + " is below the fields so far (" + extent + " bytes)");
        }
        extent = offset;
        return this;
    }

    public final int addByte() {
        return addByte(1);
    }

    public final int addByte(int length) {
        return addField(MPI.BYTE, 1, 1, length);
    }

    public final int addChar() {
        return addChar(1);
    }

    public final int addChar(int length) {
        return addField(MPI.CHAR, 2, 2, length);
    }

    public final int addShort() {
        return addShort(1);
    }

    public final int addShort(int length) {
        return addField(MPI.SHORT, 2, 2, length);
    }

    public final int addInt() {
        return addInt(1);
    }

    public final int addInt(int length) {
        return addField(MPI.INT, 4, 4, length);
    }

    public final int addLong() {
        return addLong(1);
    }

    public final int addLong(int length) {
        return addField(MPI.LONG, 8, 8, length);
    }

    public final int addFloat() {
        return addFloat(1);
    }

    public final int addFloat(int length) {
        return addField(MPI.FLOAT, 4, 4, length);
    }

    public final int addDouble() {
        return addDouble(1);
    }

    public final int addDouble(int length) {
        return addField(MPI.DOUBLE, 8, 8, length);
    }

    /** A field that is itself a structure. */
    public final int addStruct(Struct struct) throws MPIException {
        return addStruct(struct, 1);
    }

    public final int addStruct(Struct struct, int length) throws MPIException {
        int size = struct.getExtent();
        return addField(struct, size, struct.alignment, length);
    }

    /** A field of any datatype. */
    public final int addData(Datatype type) throws MPIException {
        return addData(type, 1);
    }

    /** {@code length} elements of {@code type}, one extent apart (as the bindings lay them out, gaps included). */
    public final int addData(Datatype type, int length) throws MPIException {
        int extent = (int) type.byteExtent();
        return addField(type, extent, Math.min(8, Math.max(1, Integer.lowestOneBit(Math.max(1, extent)))), length);
    }

    /** One element of a structure in a buffer; a subclass adds named accessors over the protected ones. */
    public abstract class Data {
        private ByteBuffer buffer;
        private int offset;

        /** The buffer from this element on. */
        public final ByteBuffer getBuffer() {
            return offset == 0 ? buffer : MPI.slice(buffer, offset);
        }

        protected final byte getByte(int field) {
            return buffer.get(offset + field);
        }

        protected final byte getByte(int field, int index) {
            return buffer.get(offset + field + index);
        }

        protected final void putByte(int field, byte v) {
            buffer.put(offset + field, v);
        }

        protected final void putByte(int field, int index, byte v) {
            buffer.put(offset + field + index, v);
        }

        protected final char getChar(int field) {
            return buffer.getChar(offset + field);
        }

        protected final char getChar(int field, int index) {
            return buffer.getChar(offset + field + index * 2);
        }

        protected final void putChar(int field, char v) {
            buffer.putChar(offset + field, v);
        }

        protected final void putChar(int field, int index, char v) {
            buffer.putChar(offset + field + index * 2, v);
        }

        protected final short getShort(int field) {
            return buffer.getShort(offset + field);
        }

        protected final short getShort(int field, int index) {
            return buffer.getShort(offset + field + index * 2);
        }

        protected final void putShort(int field, short v) {
            buffer.putShort(offset + field, v);
        }

        protected final void putShort(int field, int index, short v) {
            buffer.putShort(offset + field + index * 2, v);
        }

        protected final int getInt(int field) {
            return buffer.getInt(offset + field);
        }

        protected final int getInt(int field, int index) {
            return buffer.getInt(offset + field + index * 4);
        }

        protected final void putInt(int field, int v) {
            buffer.putInt(offset + field, v);
        }

        protected final void putInt(int field, int index, int v) {
            buffer.putInt(offset + field + index * 4, v);
        }

        protected final long getLong(int field) {
            return buffer.getLong(offset + field);
        }

        protected final long getLong(int field, int index) {
            return buffer.getLong(offset + field + index * 8);
        }

        protected final void putLong(int field, long v) {
            buffer.putLong(offset + field, v);
        }

        protected final void putLong(int field, int index, long v) {
            buffer.putLong(offset + field + index * 8, v);
        }

        protected final float getFloat(int field) {
            return buffer.getFloat(offset + field);
        }

        protected final float getFloat(int field, int index) {
            return buffer.getFloat(offset + field + index * 4);
        }

        protected final void putFloat(int field, float v) {
            buffer.putFloat(offset + field, v);
        }

        protected final void putFloat(int field, int index, float v) {
            buffer.putFloat(offset + field + index * 4, v);
        }

        protected final double getDouble(int field) {
            return buffer.getDouble(offset + field);
        }

        protected final double getDouble(int field, int index) {
            return buffer.getDouble(offset + field + index * 8);
        }

        protected final void putDouble(int field, double v) {
            buffer.putDouble(offset + field, v);
        }

        protected final void putDouble(int field, int index, double v) {
            buffer.putDouble(offset + field + index * 8, v);
        }

        /** The nested structure at {@code field}. */
        protected final <S extends Struct, D extends Struct.Data> D getData(S struct, int field) {
            return struct.newData(buffer, offset + field);
        }

        /** Element {@code index} of the nested structure array at {@code field}. */
        protected final <S extends Struct, D extends Struct.Data> D getData(S struct, int field, int index) {
            return struct.newData(buffer, offset + field + index * struct.extent);
        }

        /** The buffer of the field at {@code field}. */
        protected final ByteBuffer getBuffer(Datatype type, int field) {
            return MPI.slice(buffer, offset + field);
        }

        /** The buffer of element {@code index} of the field at {@code field}. */
        protected final ByteBuffer getBuffer(Datatype type, int field, int index) throws MPIException {
            return MPI.slice(buffer, offset + field + index * (int) type.byteSize());
        }
    }
}
