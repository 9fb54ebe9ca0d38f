package mpi;

import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.Window;

/**
 * The bindings' {@code assertion} argument of {@code fence}, {@code post}, {@code start},
 * {@code lock} and {@code lockAll} ({@link MPI#MODE_NOCHECK} ... {@link MPI#MODE_NOSUCCEED}, or-ed)
 * as Lockstep's {@link Window.Assertion}s. Bits that no {@code MPI_MODE_} names are
 * {@code MPI_ERR_ASSERT} here; an assertion the call does not take is {@code MPI_ERR_ASSERT} from
 * the window (MPI 4.1 §12.5.5).
 */
final class WinAssertions {
    private static final int[] BITS = {MPI.MODE_NOCHECK, MPI.MODE_NOSTORE, MPI.MODE_NOPUT, MPI.MODE_NOPRECEDE, MPI.MODE_NOSUCCEED};
    private static final Window.Assertion[] NAMED = {Window.Assertion.NOCHECK, Window.Assertion.NOSTORE, Window.Assertion.NOPUT,
        Window.Assertion.NOPRECEDE, Window.Assertion.NOSUCCEED};
    private static final int ALL = MPI.MODE_NOCHECK | MPI.MODE_NOSTORE | MPI.MODE_NOPUT | MPI.MODE_NOPRECEDE | MPI.MODE_NOSUCCEED;
    /** Every combination of the five bits, made once: a synchronisation call allocates nothing for them. */
    private static final Window.Assertion[][] BY_BITS = new Window.Assertion[ALL + 1][];

    static {
        for (int bits = 0; bits <= ALL; bits++) {
            List<Window.Assertion> named = new ArrayList<>();
            for (int i = 0; i < BITS.length; i++) {
                if ((bits & BITS[i]) != 0) {
                    named.add(NAMED[i]);
                }
            }
            BY_BITS[bits] = named.toArray(new Window.Assertion[0]);
        }
    }

    private WinAssertions() {
    }

    /** {@code assertion}'s bits as assertions (none for 0); ERR_ASSERT for a bit that is not an {@code MPI_MODE_}. */
    static Window.Assertion[] of(int assertion, String call) throws MPIException {
        if ((assertion & ~ALL) != 0) {
            throw ErrorClasses.argument(ErrorClasses.ASSERT, call, "assertion " + assertion + " has bits that no MPI.MODE_ names (0x"
                    + Integer.toHexString(assertion & ~ALL) + ")");
        }
        return BY_BITS[assertion];
    }
}
