package org.lockstep.tck;

import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.ExternalMemoryRouting;
import org.lockstep.conformance.verification.MessagingProviderVerification;

/**
 * The kit against the in-repo EM-BSP simulator, found by name as a third party would find it, with
 * a largest world and its external memory declared (the EMBSP rules run on P = 1 and P = 2): it
 * has no indirection threshold and no device the kit could watch, so the rules assume defaults for
 * sizes and skip the device-ownership rule.
 */
class EmBspProviderVerificationTest extends MessagingProviderVerification {
    /** Sixteen: the EMBSP rules run eight ranks on each of two real processors. */
    private static final int MAX_RANKS = 16;

    @Override
    protected LockstepProvider provider() {
        return Lockstep.find("embsp").orElseThrow(() -> new AssertionError("the EM-BSP provider is not installed"));
    }

    @Override
    protected Capabilities capabilities() {
        return Capabilities.of(MAX_RANKS).withExternalMemory(ExternalMemoryRouting.EMBSP);
    }
}
