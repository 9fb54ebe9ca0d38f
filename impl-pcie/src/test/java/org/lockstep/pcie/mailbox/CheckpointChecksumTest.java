package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

/** The checkpoint slot's checksum: CRC32C of epoch, length and body, the same whether folded in pieces or read back whole. */
class CheckpointChecksumTest {
    private static final long EPOCH = 7;

    @Test
    void aCommitInPiecesAndTheBodyReadBackGiveTheCrc32cOfEpochLengthAndBody() {
        long[] transport = {3, 0x0102030405060708L, -1L};
        byte[] state = new byte[20_000]; // more than one copy piece, not a multiple of 8
        for (int i = 0; i < state.length; i++) {
            state[i] = (byte) (i * 31 + 7);
        }
        long bodyLength = transport.length * Long.BYTES + state.length;
        ByteBuffer expected = ByteBuffer.allocate(16 + (int) bodyLength).order(ByteOrder.LITTLE_ENDIAN);
        expected.putLong(EPOCH).putLong(bodyLength);
        for (long word : transport) {
            expected.putLong(word);
        }
        expected.put(state).flip();
        CRC32C crc = new CRC32C();
        crc.update(expected.duplicate());

        long committed = CheckpointChecksum.of(EPOCH, bodyLength, MemorySegment.ofArray(transport), transport.length,
                List.of(MemorySegment.ofArray(state)));
        assertEquals(crc.getValue(), committed);

        MemorySegment readBack = MemorySegment.ofArray(new long[(int) ((bodyLength + 7) / 8)]);
        MemorySegment.copy(MemorySegment.ofBuffer(expected.position(16)), 0, readBack, 0, bodyLength);
        assertEquals(committed, CheckpointChecksum.of(EPOCH, readBack, bodyLength), "read back as longs");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nativeState = arena.allocate(state.length).copyFrom(MemorySegment.ofArray(state));
            assertEquals(committed, CheckpointChecksum.of(EPOCH, bodyLength, MemorySegment.ofArray(transport), transport.length,
                    List.of(nativeState)), "state in native memory");
            assertEquals(committed, CheckpointChecksum.of(EPOCH, bodyLength, MemorySegment.ofArray(transport), transport.length,
                    List.of(MemorySegment.ofArray(state).asSlice(0, 12).asReadOnly(), nativeState.asSlice(12, 9_000),
                            MemorySegment.ofArray(state).asSlice(9_012))), "state in pieces: a read-only head, native memory, an array's tail");
            MemorySegment longState = MemorySegment.ofArray(new long[(state.length + 7) / 8]);
            MemorySegment.copy(MemorySegment.ofArray(state), 0, longState, 0, state.length);
            assertEquals(committed, CheckpointChecksum.of(EPOCH, bodyLength, MemorySegment.ofArray(transport), transport.length,
                    List.of(longState.asSlice(0, state.length))), "state in a long array");
        }
    }

    @Test
    void aChangedByteEpochOrLengthChangesIt() {
        MemorySegment body = MemorySegment.ofArray(new long[] {1, 2, 3, 4});
        long sum = CheckpointChecksum.of(EPOCH, body, 32);
        assertNotEquals(sum, CheckpointChecksum.of(EPOCH + 1, body, 32));
        assertNotEquals(sum, CheckpointChecksum.of(EPOCH, body, 24));
        body.set(ValueLayout.JAVA_BYTE, 17, (byte) 0x40);
        assertNotEquals(sum, CheckpointChecksum.of(EPOCH, body, 32));
    }
}
