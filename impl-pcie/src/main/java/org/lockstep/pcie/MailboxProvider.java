package org.lockstep.pcie;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.SuperblockDescriptor;
import org.lockstep.pcie.mailbox.MailboxOptions;
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
    public Set<String> propertyNames() {
        return MailboxOptions.PROPERTY_NAMES;
    }

    @Override
    public void checkOptions(JobOptions options) {
        MailboxOptions.check(options);
    }

    /** Reads the superblock of the file (never through a link) and compares its job key. */
    @Override
    public boolean holdsJobDevice(Path devicePath, long jobKey) {
        ByteBuffer superblock = ByteBuffer.allocate(SuperblockDescriptor.LENGTH);
        try (SeekableByteChannel file = Files.newByteChannel(devicePath, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            while (superblock.hasRemaining() && file.read(superblock) >= 0) {
                // read the whole header, or what the file has
            }
        } catch (IOException e) {
            return false;
        }
        return DeviceFormat.holdsJob(superblock.flip(), jobKey);
    }

    @Override
    protected AttachedRank attachRank(JobOptions options, LaunchEnvironment launch) {
        return ProcessWorld.attach(options, launch);
    }
}
