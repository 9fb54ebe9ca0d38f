package org.lockstep.pcie.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.SlotDescriptor;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/** What a pair ring's receiver reads back of in-place slots, for every payload length around the header's line. */
class SlotRingTest {
    private static final MailboxConfig CONFIG = new MailboxConfig(2, 8, 128, 0, 64 * 1024, 0x5107);

    @Test
    void everyInPlaceLengthArrivesWithItsHeaderAndExactBytes() {
        MailboxLayout layout = new MailboxLayout(CONFIG, DeviceSpec.DEFAULT_BLOCK_SIZE);
        try (ExternalMemory device = DeviceProviders.open(DeviceSpec.of("emulated", layout.requiredCapacity()));
             Arena arena = Arena.ofConfined()) {
            SlotRing sending = SlotRing.pair(device, layout, 0, 1);
            SlotRing receiving = SlotRing.pair(device, layout, 0, 1);
            SlotHeader header = new SlotHeader(0);
            // An odd offset into the sender's buffer: the payload is read as unaligned words and a partial last word.
            MemorySegment buffer = arena.allocate(128 + 3);
            for (int length = 0; length <= 64; length++) {
                for (int i = 0; i < length; i++) {
                    buffer.set(ValueLayout.JAVA_BYTE, 3 + i, (byte) (length * 31 + i + 1));
                }
                assertTrue(sending.hasRoom(), "room for length " + length);
                long ticket = sending.next();
                sending.publish(ticket, header.set(length + 100, 7 + length, 9, length, length, 0, 0), buffer, 3);
                sending.advance();

                List<byte[]> payloads = new ArrayList<>();
                int expected = length;
                assertTrue(receiving.drain(new SlotRing.Reader<byte[]>() {
                    @Override
                    public byte[] read(long slot, long t) {
                        assertEquals(expected + 100, device.getLong(slot + SlotDescriptor.SEQUENCE_OFFSET));
                        assertEquals(expected, device.getLong(slot + SlotDescriptor.LENGTH_OFFSET));
                        assertEquals(7 + expected, device.getInt(slot + SlotDescriptor.TAG_OFFSET));
                        assertEquals(9, device.getInt(slot + SlotDescriptor.CONTEXT_OFFSET));
                        assertEquals(0, device.getInt(slot + SlotDescriptor.SOURCE_OFFSET));
                        MemorySegment payload = MemorySegment.ofArray(new byte[expected]);
                        device.read(slot + SlotDescriptor.PAYLOAD_OFFSET, payload, 0, expected);
                        return payload.toArray(ValueLayout.JAVA_BYTE);
                    }

                    @Override
                    public void take(byte[] message) {
                        payloads.add(message);
                    }
                }), "length " + length + " published");
                assertEquals(1, payloads.size());
                assertArrayEquals(buffer.asSlice(3, length).toArray(ValueLayout.JAVA_BYTE), payloads.get(0), "payload of length " + length);
            }
        }
    }
}
