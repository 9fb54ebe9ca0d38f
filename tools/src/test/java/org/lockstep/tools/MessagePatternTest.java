package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Status;

class MessagePatternTest {
    private static final int FROM = 2;
    private static final int TO = 1;
    private static final int TAG = 3;

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 8, 9, 1023, 1024, 1025, 4097})
    void filledBufferPassesAndEveryCorruptedByteIsFound(long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(size);
            MessagePattern.fill(buffer, FROM, TO, size);
            assertEquals(-1, MessagePattern.firstMismatch(buffer, FROM, TO, size));
            for (long offset : new long[] {0, size / 2, size - 1}) {
                byte original = buffer.get(ValueLayout.JAVA_BYTE, offset);
                buffer.set(ValueLayout.JAVA_BYTE, offset, (byte) (original ^ 0x10));
                assertEquals(offset, MessagePattern.firstMismatch(buffer, FROM, TO, size));
                buffer.set(ValueLayout.JAVA_BYTE, offset, original);
            }
        }
    }

    @Test
    void patternDependsOnSenderReceiverAndSize() {
        long size = 64;
        MemorySegment buffer = MemorySegment.ofArray(new byte[(int) size]);
        MessagePattern.fill(buffer, FROM, TO, size);
        assertTrue(MessagePattern.firstMismatch(buffer, TO, FROM, size) >= 0, "swapped sender and receiver");
        assertTrue(MessagePattern.firstMismatch(buffer, FROM, 0, size) >= 0, "other receiver");
        MemorySegment longer = MemorySegment.ofArray(new byte[(int) size + 1]);
        MessagePattern.fill(longer, FROM, TO, size + 1);
        assertTrue(MessagePattern.firstMismatch(longer, FROM, TO, size) >= 0, "same prefix of a longer message");
    }

    @Test
    void fillAgreesWithExpectedByte() {
        long size = 21;
        MemorySegment buffer = MemorySegment.ofArray(new byte[(int) size]);
        MessagePattern.fill(buffer, FROM, TO, size);
        for (long i = 0; i < size; i++) {
            assertEquals(MessagePattern.expectedByte(FROM, TO, size, i), buffer.get(ValueLayout.JAVA_BYTE, i));
        }
    }

    @Test
    void checksumChangesWithContent() {
        MemorySegment buffer = MemorySegment.ofArray(new byte[100]);
        MessagePattern.fill(buffer, FROM, TO, 100);
        int before = MessagePattern.checksum(buffer, 100);
        buffer.set(ValueLayout.JAVA_BYTE, 50, (byte) ~buffer.get(ValueLayout.JAVA_BYTE, 50));
        assertNotEquals(before, MessagePattern.checksum(buffer, 100));
    }

    @Test
    void exampleCheckAcceptsTheRightMessageAndRejectsCorruptedOrMislabelledOnes() {
        long size = 1025;
        MemorySegment buffer = MemorySegment.ofArray(new byte[(int) size]);
        MessagePattern.fill(buffer, FROM, TO, size);
        Status status = Status.of(FROM, TAG, size);
        assertNull(ExampleCommand.check(status, buffer, FROM, TO, size, TAG));

        assertNotNull(ExampleCommand.check(Status.of(0, TAG, size), buffer, FROM, TO, size, TAG));
        assertNotNull(ExampleCommand.check(Status.of(FROM, TAG + 1, size), buffer, FROM, TO, size, TAG));
        assertNotNull(ExampleCommand.check(Status.of(FROM, TAG, size - 1), buffer, FROM, TO, size, TAG));

        buffer.set(ValueLayout.JAVA_BYTE, 1000, (byte) ~buffer.get(ValueLayout.JAVA_BYTE, 1000));
        String problem = ExampleCommand.check(status, buffer, FROM, TO, size, TAG);
        assertNotNull(problem);
        assertTrue(problem.contains("byte 1000"), problem);
    }

    @Test
    void exchangeCountsFailedChecks() {
        ExampleCommand.Exchange exchange = new ExampleCommand.Exchange(java.util.List.of(8L), 8, new java.io.PrintWriter(java.io.Writer.nullWriter()));
        MemorySegment zeros = MemorySegment.ofArray(new byte[8]);
        String verdict = exchange.verdict(Status.of(FROM, TAG, 8), zeros, FROM, TO, 8, TAG);
        assertTrue(verdict.startsWith("FAILED"), verdict);
        assertEquals(1, exchange.failures.get());
    }

    @Test
    void exampleSizesStraddleTheThreshold() {
        assertEquals(java.util.List.of(1023L, 1024L, 1025L, 4097L, 1L << 20), ExampleCommand.sizes(1024));
        assertEquals(java.util.List.of(1L, 2L, 5L, 1L << 20), ExampleCommand.sizes(1));
    }
}
