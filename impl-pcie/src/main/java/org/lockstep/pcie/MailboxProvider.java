package org.lockstep.pcie;

import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.pcie.mailbox.MailboxThreadWorld;
import org.lockstep.pcie.mailbox.ProcessWorld;
import org.lockstep.spi.messaging.AttachedRank;
import org.lockstep.spi.messaging.AbstractMessagingProvider;
import org.lockstep.spi.messaging.ThreadWorld;

/**
 * The mailbox transport of seed 001 as a Lockstep provider: MPI point-to-point through a shared
 * device, over any device provider ({@code lockstep.device}, default {@code emulated}).
 */
public final class MailboxProvider extends AbstractMessagingProvider {
    public static final String NAME = "mailbox";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "mailbox transport through a shared PCIe-linked storage device (seed 001)";
    }

    @Override
    protected ThreadWorld openThreadWorld(JobOptions options) {
        return MailboxThreadWorld.open(options);
    }

    @Override
    protected AttachedRank attachRank(JobOptions options, LaunchEnvironment launch) {
        return ProcessWorld.attach(options, launch);
    }
}
