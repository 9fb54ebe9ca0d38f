package mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** The calls that need no world: dimension factoring, structure layouts, the pair helpers' layouts. */
class LocalCallsTest {

    @Test
    void createDimsBalancesTheFreeDimensionsInNonIncreasingOrder() throws MPIException {
        int[] dims = new int[2];
        Dims.create(12, dims);
        assertArrayEquals(new int[] {4, 3}, dims);
        int[] fixed = {0, 3, 0};
        Dims.create(24, fixed);
        assertArrayEquals(new int[] {4, 3, 2}, fixed);
        int[] prime = new int[3];
        Dims.create(7, prime);
        assertArrayEquals(new int[] {7, 1, 1}, prime);
    }

    @Test
    void createDimsRejectsWhatCannotBeFactored() {
        MPIException e = assertThrows(MPIException.class, () -> Dims.create(10, new int[] {3, 0}));
        assertEquals(MPI.ERR_DIMS, e.getErrorClass());
        assertThrows(MPIException.class, () -> Dims.create(0, new int[1]));
        assertThrows(MPIException.class, () -> Dims.create(6, new int[] {4}));
    }

    /** A user structure: a char, a double, an int; padded like a C struct. */
    static final class Particle extends Struct {
        final int kind = addChar();
        final int mass = addDouble();
        final int id = addInt();

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            void set(char k, double m, int i) {
                putChar(kind, k);
                putDouble(mass, m);
                putInt(id, i);
            }

            double mass() {
                return getDouble(mass);
            }

            int id() {
                return getInt(id);
            }
        }
    }

    @Test
    void aStructureIsLaidOutAndPaddedAsInC() throws MPIException {
        Particle p = new Particle();
        assertEquals(0, p.kind);
        assertEquals(8, p.mass);
        assertEquals(16, p.id);
        assertEquals(24, p.getExtent());
        ByteBuffer buffer = ByteBuffer.allocate(3 * p.getExtent());
        Particle.Data second = p.getData(buffer, 1);
        second.set('x', 2.5, 42);
        Particle.Data again = p.getData(buffer, 1);
        assertEquals(2.5, again.mass());
        assertEquals(42, again.id());
        assertEquals('x', buffer.order(java.nio.ByteOrder.nativeOrder()).getChar(24));
    }

    @Test
    void thePairHelpersHaveTheLayoutsOfTheirDatatypes() throws MPIException {
        assertEquals(MPI.INT2.byteSize(), MPI.int2.getExtent());
        assertEquals(MPI.LONG_INT.byteSize(), MPI.longInt.getExtent());
        assertEquals(12, MPI.doubleInt.getExtent());
        ByteBuffer b = ByteBuffer.allocateDirect(2 * MPI.shortInt.getExtent());
        ShortInt.Data d = MPI.shortInt.getData(b, 1);
        d.putValue((short) -3);
        d.putIndex(9);
        assertEquals(-3, b.order(java.nio.ByteOrder.nativeOrder()).getInt(8), "the short is widened to the int the reduction compares");
        assertEquals(9, b.getInt(12));
        assertEquals((short) -3, MPI.shortInt.<ShortInt.Data>getData(b, 1).getValue());
    }

    @Test
    void windowAssertionBitsBecomeLockstepsAssertionsAndUnnamedBitsAreAssertErrors() throws MPIException {
        assertArrayEquals(new org.lockstep.api.Window.Assertion[0], WinAssertions.of(0, "Win.fence"));
        assertArrayEquals(new org.lockstep.api.Window.Assertion[] {org.lockstep.api.Window.Assertion.NOCHECK},
                WinAssertions.of(MPI.MODE_NOCHECK, "Win.lock"));
        assertArrayEquals(new org.lockstep.api.Window.Assertion[] {org.lockstep.api.Window.Assertion.NOSTORE,
            org.lockstep.api.Window.Assertion.NOPRECEDE}, WinAssertions.of(MPI.MODE_NOPRECEDE | MPI.MODE_NOSTORE, "Win.fence"));
        assertArrayEquals(new org.lockstep.api.Window.Assertion[] {org.lockstep.api.Window.Assertion.NOPUT,
            org.lockstep.api.Window.Assertion.NOSUCCEED}, WinAssertions.of(MPI.MODE_NOSUCCEED | MPI.MODE_NOPUT, "Win.fence"));
        MPIException e = assertThrows(MPIException.class, () -> WinAssertions.of(MPI.MODE_NOCHECK | 32, "Win.lock"));
        assertEquals(MPI.ERR_ASSERT, e.getErrorClass());
        assertEquals(true, e.getMessage().startsWith("Win.lock: assertion 33"), e.getMessage());
    }

    /** Every Lockstep class that carries a name of Open MPI 4.1's mpi.h reaches the program as that class, not as ERR_OTHER. */
    @Test
    void lockstepErrorClassesWithAnMpiNameMapToThatClass() {
        assertEquals(MPI.ERR_ASSERT, ErrorClasses.of(org.lockstep.api.ErrorClass.ASSERT));
        assertEquals(MPI.ERR_INFO_NOKEY, ErrorClasses.of(org.lockstep.api.ErrorClass.INFO_NOKEY));
        for (org.lockstep.api.ErrorClass c : org.lockstep.api.ErrorClass.values()) {
            boolean inOpenMpi41 = c.mpiName().startsWith("MPI_ERR_") && !c.mpiName().startsWith("MPI_ERR_PROC_FAILED");
            if (inOpenMpi41 && c != org.lockstep.api.ErrorClass.OTHER) {
                assertEquals(true, ErrorClasses.of(c) != MPI.ERR_OTHER, c + " (" + c.mpiName() + ") maps to ERR_OTHER");
            }
        }
    }

    /** ompi-java-test random/AttrErrorCode: KEYVAL_INVALID is ERR_KEYVAL (it was a BitSet's IndexOutOfBoundsException). */
    @Test
    void anInvalidKeyvalIsErrKeyval() {
        for (Attributes.Kind kind : Attributes.Kind.values()) {
            Attributes attributes = new Attributes(kind);
            MPIException e = assertThrows(MPIException.class, () -> attributes.get(MPI.KEYVAL_INVALID, "getAttr"));
            assertEquals(MPI.ERR_KEYVAL, e.getErrorClass());
            assertEquals(MPI.ERR_KEYVAL, assertThrows(MPIException.class, () -> attributes.set(-7, "x", "setAttr")).getErrorClass());
        }
    }
}
