package org.lockstep.tck;

import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.verification.MessagingProviderVerification;

/**
 * The kit against the in-repo EM-BSP simulator, found by name as a third party would find it, with
 * only a largest world declared: it has no indirection threshold and no device the kit could watch,
 * so the rules assume defaults for sizes and skip the device-ownership rule.
 */
class EmBspProviderVerificationTest extends MessagingProviderVerification {
    private static final int MAX_RANKS = 8;

    @Override
    protected LockstepProvider provider() {
        return Lockstep.find("embsp").orElseThrow(() -> new AssertionError("the EM-BSP provider is not installed"));
    }

    @Override
    protected Capabilities capabilities() {
        return Capabilities.of(MAX_RANKS);
    }
}
