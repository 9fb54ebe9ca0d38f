package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.lockstep.spi.device.CrashInjectable;
import org.lockstep.spi.device.CrashInjectable.PowerLoss;
import org.lockstep.spi.device.DeviceException;

class PowerLossTest {
    private static final int LINE = EmulatedDevice.PERSISTENCE_LINE_BYTES;
    private final EmulatedDevice device = TestDevices.open(64 * LINE);

    @AfterEach
    void close() {
        device.close();
    }

    @Test
    void anArmedCrashStrikesAtTheChosenMutationAndTheMachineStaysOff() {
        CrashInjectable crash = device;
        device.putLong(0, 1);
        device.persist(0, 8);
        long before = crash.mutatingAccesses();
        crash.armPowerLoss(3, PowerLoss.WHOLE_LINES);
        device.putLong(LINE, 2);      // 1st
        device.putLong(2 * LINE, 3);  // 2nd
        assertThrows(DeviceException.class, () -> device.putLong(3 * LINE, 4), "the 3rd mutation is the crash point");
        assertTrue(crash.poweredOff());
        assertThrows(DeviceException.class, () -> device.getLong(0), "nothing answers while the power is off");
        crash.powerOn();
        assertEquals(1, device.getLong(0), "persisted survives");
        assertEquals(0, device.getLong(LINE), "unpersisted is lost");
        assertEquals(0, device.getLong(2 * LINE));
        assertEquals(0, device.getLong(3 * LINE), "the striking access never happened");
        assertEquals(before + 3, crash.mutatingAccesses());
        assertEquals(0, device.unpersistedBytes(), "what survived is the durable content");
    }

    @Test
    void tornLossKeepsOrRevertsEachWordAndNeverTearsOne() {
        boolean someSurvived = false;
        boolean someReverted = false;
        for (long seed = 0; seed < 8; seed++) {
            for (int w = 0; w < 8; w++) {
                device.putLong(LINE + 8L * w, -1L - w);
            }
            device.powerLoss(PowerLoss.torn(seed));
            device.powerOn();
            for (int w = 0; w < 8; w++) {
                long value = device.getLong(LINE + 8L * w);
                assertTrue(value == 0 || value == -1L - w, "word " + w + " is " + value + ": an 8-byte word is never torn");
                someSurvived |= value != 0;
                someReverted |= value == 0;
            }
            device.fill(LINE, LINE, (byte) 0);
            device.persist(LINE, LINE);
        }
        assertTrue(someSurvived && someReverted, "torn loss must keep some unpersisted words and lose others");
    }

    @Test
    void disarmedCrashNeverStrikes() {
        device.armPowerLoss(1, PowerLoss.WHOLE_LINES);
        device.disarm();
        device.putLong(0, 5);
        assertFalse(device.poweredOff());
        assertEquals(5, device.getLong(0));
    }
}
