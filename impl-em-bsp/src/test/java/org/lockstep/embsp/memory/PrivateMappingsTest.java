package org.lockstep.embsp.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file range mapped privately over a partition reads the file, keeps stores private, and tells written pages from read ones. */
class PrivateMappingsTest {
    private static final long PAGE = 4096;

    @Test
    void mappedPagesReadTheFileAndOnlyStoresCountAsWritten(@TempDir Path dir) throws Exception {
        Path file = pagesFile(dir, 64);
        try (Arena arena = Arena.ofShared(); PrivateMappings mappings = PrivateMappings.over(List.of(file))) {
            assertTrue(mappings.available(), () -> "no private mappings here: " + mappings.unavailableReason());
            MemorySegment partition = mappings.allocate(32 * PAGE, PAGE, arena);
            mappings.drop(0, 0, 64 * PAGE);
            mappings.map(partition, 4 * PAGE, 16 * PAGE, 0, 8 * PAGE);
            assertEquals(9, partition.get(ValueLayout.JAVA_BYTE, 4 * PAGE), "file page 8 at partition page 4");
            assertEquals(15, partition.get(ValueLayout.JAVA_BYTE, 10 * PAGE + 5));
            partition.set(ValueLayout.JAVA_BYTE, 12 * PAGE, (byte) 99);
            partition.set(ValueLayout.JAVA_BYTE, 25 * PAGE, (byte) 7); // fresh memory outside the mapping
            byte zero = partition.get(ValueLayout.JAVA_BYTE, 27 * PAGE); // read only: the zero page
            assertEquals(0, zero);
            assertEquals(List.of(12 * PAGE, 13 * PAGE, 25 * PAGE, 26 * PAGE), flatten(mappings.written(partition)));
            assertTrue(mappings.cachedBytes(0, 8 * PAGE, 16 * PAGE) >= 2 * PAGE, "the touched pages were read through the cache");
            mappings.forget(partition, 0, partition.byteSize());
            mappings.drop(0, 0, 64 * PAGE);
            assertEquals(0, mappings.cachedBytes(0, 0, 64 * PAGE), "nothing of the file stays cached");
            assertEquals(0, partition.get(ValueLayout.JAVA_BYTE, 12 * PAGE), "forgotten: fresh pages");
            assertEquals(List.of(), flatten(mappings.written(partition)));
        }
        assertEquals(13, Files.readAllBytes(file)[(int) (12 * PAGE)], "the file never saw the store");
    }

    @Test
    void forgottenPagesAreFreshAndReadNothing(@TempDir Path dir) throws Exception {
        Path file = pagesFile(dir, 16);
        try (Arena arena = Arena.ofShared(); PrivateMappings mappings = PrivateMappings.over(List.of(file))) {
            assertTrue(mappings.available(), () -> "no private mappings here: " + mappings.unavailableReason());
            MemorySegment partition = mappings.allocate(16 * PAGE, PAGE, arena);
            mappings.drop(0, 0, 16 * PAGE);
            mappings.map(partition, 0, 16 * PAGE, 0, 0);
            // from the middle of page 2 to the middle of page 6: pages 3, 4 and 5 whole
            mappings.forget(partition, 2 * PAGE + 100, 6 * PAGE + 100);
            for (long page = 3; page <= 5; page++) {
                assertEquals(0, partition.get(ValueLayout.JAVA_BYTE, page * PAGE), "page " + page + " is fresh");
                partition.set(ValueLayout.JAVA_BYTE, page * PAGE, (byte) 42);
            }
            assertEquals(0, mappings.cachedBytes(0, 3 * PAGE, 3 * PAGE), "no fault read the forgotten pages");
            assertEquals(3, partition.get(ValueLayout.JAVA_BYTE, 2 * PAGE), "page 2 is only partly freed: still the file's");
            assertEquals(7, partition.get(ValueLayout.JAVA_BYTE, 6 * PAGE), "so is page 6");
            assertEquals(List.of(3 * PAGE, 6 * PAGE), flatten(mappings.written(partition)));
        }
    }

    /** A file of {@code pages} pages, each filled with its number plus one, on disk. */
    private static Path pagesFile(Path dir, int pages) throws Exception {
        Path file = dir.resolve("disk");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate((int) (pages * PAGE));
            for (int i = 0; i < b.capacity(); i++) {
                b.put(i, (byte) (i / PAGE + 1));
            }
            ch.write(b, 0);
            ch.force(true); // clean pages: only those can leave the cache
        }
        return file;
    }

    private static List<Long> flatten(List<long[]> ranges) {
        List<Long> flat = new ArrayList<>();
        for (long[] r : ranges) {
            flat.add(r[0]);
            flat.add(r[1]);
        }
        return flat;
    }
}
