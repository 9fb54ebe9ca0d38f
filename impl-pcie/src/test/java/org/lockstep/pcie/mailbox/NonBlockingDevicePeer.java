package org.lockstep.pcie.mailbox;

import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;

/**
 * One rank of {@link NonBlockingDeviceCollectivesTest}'s launched job: a separate JVM attached to
 * a /dev/shm device. Arguments: device path, rank, ranks, job key (hex), where the non-blocking
 * collectives run ({@code device} or {@code schedules}). Prints {@code sent=N} and exits 0 when
 * its checks hold; 1 with the reason otherwise.
 */
public final class NonBlockingDevicePeer {
    private NonBlockingDevicePeer() {
    }

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[1]);
        int ranks = Integer.parseInt(args[2]);
        JobOptions options = JobOptions.ofRanks(ranks).with(MailboxOptions.NONBLOCKING_COLLECTIVES, args[4]);
        ProcessWorld attached = ProcessWorld.attach(options,
                new LaunchEnvironment(rank, ranks, args[0], Long.parseUnsignedLong(args[3], 16), "lockstep"));
        try {
            long sent = NonBlockingDeviceProgram.run(attached.communicator());
            System.out.println("sent=" + sent);
            attached.close();
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace();
            attached.failed(t);
            System.exit(1);
        }
    }
}
