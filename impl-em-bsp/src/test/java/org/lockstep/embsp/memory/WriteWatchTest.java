package org.lockstep.embsp.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The kernel's write watch sees every store into a watched region, from any thread, and nothing else. */
class WriteWatchTest {
    private static final long PAGE = 4096;

    @Test
    void reportsExactlyThePagesWrittenSinceTheLastLook() throws InterruptedException {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment region = arena.allocate(64 * PAGE, PAGE);
            MemorySegment other = arena.allocate(8 * PAGE, PAGE);
            try (WriteWatch watch = WriteWatch.over(List.of(region, other))) {
                assumeTrue(watch.available(), () -> "no kernel write watch here: " + watch.unavailableReason());
                region.fill((byte) 1);
                watch.forget(region);
                assertEquals(List.of(), flatten(watch.written(region)));

                region.set(ValueLayout.JAVA_BYTE, 5 * PAGE + 3, (byte) 7);
                Thread writer = Thread.ofPlatform().start(() -> region.asSlice(10 * PAGE, 2 * PAGE).fill((byte) 2));
                writer.join();
                other.fill((byte) 3); // another watched region does not count for this one
                assertEquals(List.of(5 * PAGE, 6 * PAGE, 10 * PAGE, 12 * PAGE), flatten(watch.written(region)));
                assertEquals(List.of(), flatten(watch.written(region)), "a look protects the pages again");
                assertEquals(List.of(0L, 8 * PAGE), flatten(watch.written(other)));
            }
        }
    }

    @Test
    void storesWhileWritesAreAllowedAreNotCountedAndForgetProtectsAgain() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment region = arena.allocate(16 * PAGE, PAGE);
            try (WriteWatch watch = WriteWatch.over(List.of(region))) {
                assumeTrue(watch.available(), () -> "no kernel write watch here: " + watch.unavailableReason());
                watch.forget(region);
                watch.allowWrites(region);
                region.fill((byte) 4); // as a swap-in's read
                watch.forget(region);
                assertEquals(List.of(), flatten(watch.written(region)), "forget drops what the read stored");
                region.set(ValueLayout.JAVA_BYTE, 3 * PAGE, (byte) 1);
                assertEquals(List.of(3 * PAGE, 4 * PAGE), flatten(watch.written(region)), "and later stores count again");
            }
        }
    }

    @Test
    void rangesAreClippedToTheRegion() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment pages = arena.allocate(4 * PAGE, PAGE);
            MemorySegment region = pages.asSlice(PAGE + 512, 2 * PAGE);
            try (WriteWatch watch = WriteWatch.over(List.of(region))) {
                assumeTrue(watch.available(), () -> "no kernel write watch here: " + watch.unavailableReason());
                watch.forget(region);
                pages.fill((byte) 9);
                List<long[]> written = watch.written(region);
                assertEquals(1, written.size());
                assertArrayEquals(new long[] {0, 2 * PAGE}, written.getFirst());
            }
        }
    }

    @Test
    void anUnavailableWatchCannotTell() {
        WriteWatch none = WriteWatch.none();
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(null, none.written(arena.allocate(PAGE)));
        }
    }

    private static List<Long> flatten(List<long[]> ranges) {
        return ranges.stream().flatMap(r -> java.util.stream.Stream.of(r[0], r[1])).toList();
    }
}
