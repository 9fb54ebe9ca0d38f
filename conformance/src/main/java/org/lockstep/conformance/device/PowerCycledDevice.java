package org.lockstep.conformance.device;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.RuleSkipped;
import org.lockstep.spi.device.CrashInjectable;
import org.lockstep.spi.device.ExternalMemory;

/**
 * One device kept across the runs of a job, so that a job can lose power and run again on what
 * survived: the first device the provider opens through this session is handed back on every later
 * open (the provider's close leaves it open), and its {@link CrashInjectable} operations cut and
 * restore its power. Close the session to close the device.
 */
public final class PowerCycledDevice implements AutoCloseable {
    private final AtomicReference<ExternalMemory> real = new AtomicReference<>();
    private final DeviceInterposer.Session session = DeviceInterposer.open(this::keep, true);
    private volatile long armCountdown;
    private volatile CrashInjectable.PowerLoss armLoss;

    private ExternalMemory keep(ExternalMemory opened) {
        if (real.compareAndSet(null, opened)) {
            if (armCountdown > 0) {
                crash().armPowerLoss(armCountdown, armLoss);
            }
        } else {
            opened.close();
        }
        return new Kept(real.get());
    }

    /** {@code target} opening its device through this session (skips the rule if the target runs over no device it names). */
    public MessagingTarget route(MessagingTarget target) {
        return session.route(target);
    }

    /**
     * Arms a power loss at the {@code countdown}-th mutating access of the device when the provider
     * first opens it, so that the count starts where a fault-free run's does.
     */
    public void armOnOpen(long countdown, CrashInjectable.PowerLoss loss) {
        armLoss = loss;
        armCountdown = countdown;
    }

    /** The device, once the provider has opened it. */
    public Optional<ExternalMemory> device() {
        return Optional.ofNullable(real.get());
    }

    /**
     * The device's power switch.
     *
     * @throws RuleSkipped if the device has not been opened or cannot emulate power loss
     */
    public CrashInjectable crash() {
        ExternalMemory d = real.get();
        if (d == null) {
            throw new RuleSkipped("the provider has not opened a device through the kit's interposer");
        }
        if (!(d instanceof CrashInjectable c)) {
            throw new RuleSkipped("device " + d.name() + " cannot emulate power loss (it is no CrashInjectable)");
        }
        return c;
    }

    @Override
    public void close() {
        session.close();
        ExternalMemory d = real.get();
        if (d != null) {
            d.close();
        }
    }

    /** The kept device as the provider sees it: its close is the session's. */
    private static final class Kept extends ForwardingMemory {
        Kept(ExternalMemory device) {
            super(device);
        }

        @Override
        public void close() {
            // kept for the next run of the job; PowerCycledDevice.close closes it
        }
    }
}
