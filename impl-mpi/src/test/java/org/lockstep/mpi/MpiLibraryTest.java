package org.lockstep.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.mpi.binding.MpiLibrary;

/** Finding the library: the order of candidates, and the typed errors when none fits (no MPI is started here). */
class MpiLibraryTest {
    @Test
    void anExplicitPathIsTheOnlyCandidate() {
        assertEquals(List.of("/opt/mpi/lib/libmpi.so"), MpiLibrary.candidates(" /opt/mpi/lib/libmpi.so ", Map.of("PMI_SIZE", "2")));
    }

    @Test
    void theLauncherChoosesItsOwnLibraryFirst() {
        assertEquals(MpiLibrary.MPICH, MpiLibrary.candidates(null, Map.of("PMI_SIZE", "2")).getFirst());
        assertEquals(MpiLibrary.OPEN_MPI, MpiLibrary.candidates(null, Map.of("OMPI_COMM_WORLD_SIZE", "2")).getFirst());
        assertEquals(List.of(MpiLibrary.OPEN_MPI, MpiLibrary.MPICH, MpiLibrary.STANDARD_ABI), MpiLibrary.candidates(null, Map.of()));
    }

    @Test
    void noLibraryIsATypedErrorNamingWhatWasTried() {
        LockstepException e = assertThrows(LockstepException.class,
                () -> MpiLibrary.load(List.of("/nonexistent/libmpi.so.40", "libno-such-mpi.so")));
        assertEquals(ErrorClass.NO_PROVIDER, e.errorClass());
        assertTrue(e.getMessage().contains("/nonexistent/libmpi.so.40") && e.getMessage().contains("libno-such-mpi.so")
                && e.getMessage().contains(MpiLibrary.LIBRARY_PROPERTY), e.getMessage());
    }

    @Test
    void aLibraryThatIsNotMpiIsATypedError() {
        LockstepException e = assertThrows(LockstepException.class, () -> MpiLibrary.load(List.of("libc.so.6")));
        assertEquals(ErrorClass.NO_PROVIDER, e.errorClass());
        assertTrue(e.getMessage().contains("not an MPI library"), e.getMessage());
    }
}
