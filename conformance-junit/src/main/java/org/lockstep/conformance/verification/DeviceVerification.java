package org.lockstep.conformance.verification;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.lockstep.conformance.DeviceTarget;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleExecutor;
import org.lockstep.conformance.RunSettings;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The verification of a device ({@link ExternalMemory}): subclass it, say how to open a device of
 * a given capacity and, if the device can emulate power loss, how to cut its power. Each test
 * method is one {@code DEV} rule of the {@link RuleCatalog}.
 *
 * <pre>{@code
 * class MyDeviceVerificationTest extends DeviceVerification {
 *     protected ExternalMemory open(long capacity) { return new MyDeviceProvider().open(DeviceSpec.of("mine", capacity)); }
 * }
 * }</pre>
 */
public abstract class DeviceVerification {
    /** Opens a fresh device of at least {@code capacity} bytes (the rules close it). */
    protected abstract ExternalMemory open(long capacity);

    /** How to emulate power loss on a device that declares CRASH_INJECTION; none by default. */
    protected Optional<DeviceTarget.PowerLoss> powerLoss() {
        return Optional.empty();
    }

    /** A name for reports. */
    protected String name() {
        return getClass().getSimpleName();
    }

    protected RunSettings settings() {
        return RunSettings.quick(Long.getLong(MessagingProviderVerification.SEED_PROPERTY, MessagingProviderVerification.DEFAULT_SEED));
    }

    /** Runs the rule {@code id}. */
    protected final void verify(String id) {
        DeviceTarget target = new DeviceTarget(name(), this::open, powerLoss());
        MessagingProviderVerification.report(RuleExecutor.run(RuleCatalog.rule(id), target, settings()));
    }

    @Test
    public void required_DEV_01_boundsEnforced() {
        verify("DEV.01");
    }

    @Test
    public void required_DEV_02_alignmentEnforced() {
        verify("DEV.02");
    }

    @Test
    public void required_DEV_03_atomicsAtomic() {
        verify("DEV.03");
    }

    @Test
    public void required_DEV_04_atomicsCapabilityTruthful() {
        verify("DEV.04");
    }

    @Test
    public void required_DEV_05_releaseAcquirePublication() {
        verify("DEV.05");
    }

    @Test
    public void required_DEV_06_readWriteRoundTrip() {
        verify("DEV.06");
    }

    @Test
    public void required_DEV_07_persistedBytesReadBack() {
        verify("DEV.07");
    }

    @Test
    public void optional_DEV_08_powerLossKeepsPersisted() {
        verify("DEV.08");
    }

    @Test
    public void required_DEV_09_closedDeviceRejects() {
        verify("DEV.09");
    }

    @Test
    public void required_DEV_10_geometryTruthful() {
        verify("DEV.10");
    }
}
