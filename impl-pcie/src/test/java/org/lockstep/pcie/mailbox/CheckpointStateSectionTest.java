package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.CheckpointTesting.options;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** The registered state goes to the checkpoint slot piece by piece, each segment from its own memory: what comes back at a restart. */
class CheckpointStateSectionTest {
    @Test
    void segmentsOfOddLengthsInNativeAndHeapMemoryComeBackByteForByte() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2)); Arena arena = Arena.ofShared()) {
            Communicator rank = world.communicator(1);
            MemorySegment nativeState = arena.allocate(1_001);
            MemorySegment bytes = MemorySegment.ofArray(new byte[13]);
            MemorySegment longs = MemorySegment.ofArray(new long[5]);
            fill(nativeState, 3);
            fill(bytes, 5);
            fill(longs, 7);
            rank.checkpoints().register("native, 1001 bytes", nativeState);
            rank.checkpoints().register("bytes", bytes);
            rank.checkpoints().register("longs", longs);
            rank.checkpoints().checkpoint();
            fill(nativeState, 0);
            fill(bytes, 0);
            fill(longs, 0);

            Communicator again = world.restart(1);
            MemorySegment nativeBack = arena.allocate(1_001);
            MemorySegment bytesBack = MemorySegment.ofArray(new byte[13]);
            MemorySegment longsBack = MemorySegment.ofArray(new long[5]);
            again.checkpoints().register("native, 1001 bytes", nativeBack);
            again.checkpoints().register("bytes", bytesBack);
            again.checkpoints().register("longs", longsBack);
            assertEquals(1, again.checkpoints().restore());
            assertArrayEquals(expected(1_001, 3), nativeBack.toArray(ValueLayout.JAVA_BYTE));
            assertArrayEquals(expected(13, 5), bytesBack.toArray(ValueLayout.JAVA_BYTE));
            assertArrayEquals(expected(40, 7), longsBack.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void aSegmentWhoseArenaIsClosedIsAnArgumentErrorNamingIt() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2))) {
            Communicator rank = world.communicator(0);
            Arena arena = Arena.ofShared();
            rank.checkpoints().register("gone", arena.allocate(64));
            arena.close();
            LockstepException e = assertThrows(LockstepException.class, () -> rank.checkpoints().checkpoint());
            assertEquals(ErrorClass.ARG, e.errorClass());
            assertTrue(e.getMessage().contains("'gone'"), e.getMessage());
        }
    }

    private static void fill(MemorySegment segment, int seed) {
        byte[] values = expected((int) segment.byteSize(), seed);
        MemorySegment.copy(MemorySegment.ofArray(values), 0, segment, 0, values.length);
    }

    private static byte[] expected(int length, int seed) {
        byte[] values = new byte[length];
        for (int i = 0; i < length; i++) {
            values[i] = seed == 0 ? 0 : (byte) (i * 31 + seed);
        }
        return values;
    }
}
