package org.lockstep.tck;

import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.verification.MessagingProviderVerification;

/**
 * The kit against the in-repo mailbox transport over the emulated device, found the way a third
 * party finds a provider (ServiceLoader), with the kit's built-in mailbox profile (small rings and
 * heap, so that full mailboxes, the asynchronous mailbox and heap reuse are all exercised).
 */
class MailboxProviderVerificationTest extends MessagingProviderVerification {
    private final ProviderProfile profile = ProviderProfile.mailbox();

    @Override
    protected LockstepProvider provider() {
        return Lockstep.find(ProviderProfile.MAILBOX).orElseThrow(() -> new AssertionError("the mailbox provider is not installed"));
    }

    @Override
    protected Capabilities capabilities() {
        return profile.capabilities();
    }

    @Override
    protected JobOptions jobOptions(int ranks) {
        return new JobOptions(ranks, profile.properties());
    }
}
