package org.lockstep.applications;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The radix sort orders keys as unsigned numbers on both of its paths (below and from Keys.SPLIT_FROM keys). */
class KeysTest {
    @ParameterizedTest(name = "{0} keys, {1}")
    @CsvSource({"65535, full", "65536, full", "300001, full", "300000, narrow", "200000, few", "131072, equal",
            "150000, top", "150000, low", "70000, skewed", "1, full", "0, full"})
    void radixSortMatchesAnUnsignedReference(int count, String spread) {
        SplittableRandom random = new SplittableRandom(count * 7L + spread.hashCode());
        long base = random.nextLong();
        long[] input = new long[count];
        for (int i = 0; i < count; i++) {
            input[i] = switch (spread) {
                case "narrow" -> base + (random.nextLong() >>> 24); // 40 differing bits
                case "few" -> random.nextInt(5) * 0x1111_0000_0000_0001L; // long runs of equal keys
                case "equal" -> base;
                case "top" -> random.nextBoolean() ? -1L - random.nextInt(1000) : random.nextInt(1000); // both halves of the unsigned range
                case "low" -> random.nextInt(4096); // only the low 12 bits differ
                case "skewed" -> i == 0 ? Long.MIN_VALUE : random.nextInt(1 << 20); // one key far above the rest
                default -> random.nextLong();
            };
        }
        long[] expected = Arrays.stream(input).map(k -> k ^ Long.MIN_VALUE).sorted().map(k -> k ^ Long.MIN_VALUE).toArray();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment keys = arena.allocate(8L * Math.max(1, count));
            MemorySegment scratch = arena.allocate(8L * Math.max(1, count));
            MemorySegment.copy(input, 0, keys, ValueLayout.JAVA_LONG, 0, count);
            Keys.radixSort(keys, scratch, count);
            assertArrayEquals(expected, keys.asSlice(0, 8L * count).toArray(ValueLayout.JAVA_LONG));
        }
    }
}
