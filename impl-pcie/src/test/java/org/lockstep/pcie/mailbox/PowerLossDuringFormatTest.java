package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.lockstep.api.JobOptions;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.spi.device.CrashInjectable;
import org.lockstep.spi.device.CrashInjectable.PowerLoss;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Power lost at each mutating access of the format itself (the power-loss soak's trial 593 of 1000
 * cut it at access 28): the run after power-on must not wait for a formatter that died with the
 * power, and runs from the start with the fault-free results.
 */
class PowerLossDuringFormatTest {
    private static final JobOptions OPTIONS = CheckpointTesting.options(2);

    @Test
    void aFormatCutShortByPowerLossIsDoneAfreshAtPowerOn() {
        long accesses = formatAccesses();
        assertTrue(accesses > 3, "the format made " + accesses + " mutating accesses");
        for (long at = 1; at <= accesses; at++) {
            trial(at, PowerLoss.WHOLE_LINES);
            trial(at, PowerLoss.torn(at));
        }
    }

    private static void trial(long crashAt, PowerLoss loss) {
        ExternalMemory device = openDevice();
        CrashInjectable crash = (CrashInjectable) device;
        MailboxThreadWorld resumed = null;
        try {
            crash.armPowerLoss(crashAt, loss);
            assertThrows(DeviceException.class, () -> DeviceFormat.format(device, config(device), Duration.ZERO),
                    "power lost at access " + crashAt + " of the format");
            assertTrue(crash.poweredOff());
            crash.powerOn();
            resumed = MailboxThreadWorld.afterPowerLoss(device, OPTIONS);
            PowerLossWorkload workload = new PowerLossWorkload();
            workload.attach(resumed.recovered(0), resumed.recovered(1));
            workload.runToEnd();
            assertEquals(PowerLossWorkload.expectedHash(), workload.receivedHash(),
                    "after power was lost at access " + crashAt + " of the format" + (loss.torn() ? " (torn)" : ""));
        } finally {
            crash.disarm();
            crash.powerOn();
            if (resumed != null) {
                resumed.close();
            } else {
                device.close();
            }
        }
    }

    /** Mutating accesses of a fault-free format, the range the crash points are drawn from. */
    private static long formatAccesses() {
        try (ExternalMemory device = openDevice()) {
            CrashInjectable crash = (CrashInjectable) device;
            long before = crash.mutatingAccesses();
            DeviceFormat.format(device, config(device), Duration.ZERO);
            return crash.mutatingAccesses() - before;
        }
    }

    private static ExternalMemory openDevice() {
        MailboxConfig wanted = MailboxOptions.config(OPTIONS, OPTIONS.ranks(), 1L);
        return DeviceProviders.open(MailboxOptions.deviceSpec(OPTIONS, wanted, MailboxOptions.DEFAULT_DEVICE, Optional.empty()));
    }

    private static MailboxConfig config(ExternalMemory device) {
        return MailboxOptions.forDevice(MailboxOptions.config(OPTIONS, OPTIONS.ranks(), 1L), device);
    }
}
