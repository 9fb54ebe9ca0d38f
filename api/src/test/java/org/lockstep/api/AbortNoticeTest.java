package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AbortNoticeTest {
    @Test
    void theFirstRankToAbortIsTheOneTheLauncherReadsAndNoTemporaryFileStays(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("abort");
        assertTrue(AbortNotice.read(file).isEmpty());
        new AbortNotice(1, 42, "MPI_Abort(MPI_COMM_WORLD, 42)\nsecond line").write(file);
        new AbortNotice(0, 3, "later").write(file);
        assertEquals(new AbortNotice(1, 42, "MPI_Abort(MPI_COMM_WORLD, 42) second line"), AbortNotice.read(file).orElseThrow());
        try (var left = Files.list(dir)) {
            assertEquals(List.of(file), left.toList());
        }
    }

    @Test
    void aFileThatIsNotANoticeIsATypedError(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("abort"), "zero\n");
        LockstepException e = assertThrows(LockstepException.class, () -> AbortNotice.read(file));
        assertEquals(ErrorClass.OTHER, e.errorClass());
        assertTrue(e.getMessage().contains("not rank, code and reason"), e.getMessage());
    }
}
