package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.mailbox.TestWorlds.firstMismatch;
import static org.lockstep.pcie.mailbox.TestWorlds.pattern;

import java.lang.foreign.MemorySegment;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.pcie.layout.SlotDescriptor;
import org.lockstep.spi.device.ExternalMemory;

/**
 * One rank of {@link SingleCopyProcessTest}: a separate JVM attached to a /dev/shm device.
 * Arguments: device path, rank, job key (hex), scenario. Exits 0 when its checks hold, 1 with the
 * reason on stderr otherwise; prints {@code key=value} lines for the test to check.
 */
public final class SingleCopyPeer {
    static final int SINGLE_COPY = 16 << 10;
    static final List<Integer> SIZES = List.of(256, 257, SINGLE_COPY - 1, SINGLE_COPY, SINGLE_COPY + 1, 64 << 10,
            (1 << 20) + 3, 4 << 20);
    static final int LARGEST = 4 << 20;
    /** Exit code of a rank that kills itself in the middle of a rendezvous. */
    static final int DIED = 77;
    private static final int READY = 1000;

    private SingleCopyPeer() {
    }

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[1]);
        JobOptions options = JobOptions.ofRanks(2)
                .with(MailboxOptions.INLINE_THRESHOLD, "256")
                .with(MailboxOptions.HEAP_PER_RANK, "16m")
                .with(MailboxOptions.FRAGMENT, "64k")
                .with(MailboxOptions.SINGLE_COPY_THRESHOLD, Integer.toString(SINGLE_COPY));
        ProcessWorld attached = ProcessWorld.attach(options,
                new LaunchEnvironment(rank, 2, args[0], Long.parseUnsignedLong(args[2], 16), "lockstep"));
        try {
            Communicator world = attached.communicator();
            switch (args[3]) {
                case "exchange" -> exchange(world);
                case "senderDies" -> senderDies(world);
                case "receiverDies" -> receiverDies(world);
                case "peerThrows" -> peerThrows(world);
                default -> throw new IllegalArgumentException("unknown scenario " + args[3]);
            }
            attached.close();
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace();
            attached.failed(t);
            System.exit(1);
        }
    }

    private static MailboxEndpoint endpoint(Communicator world) {
        return ((MailboxCommunicator) world).endpoint();
    }

    /** Every size goes 0 → 1 and back, each time into a device buffer whose receive was posted first. */
    private static void exchange(Communicator world) {
        MemorySegment buffer = world.allocate(LARGEST);
        int me = world.rank();
        int peer = 1 - me;
        long payload = 0;
        TransportStatistics stats = endpoint(world).statistics();
        long before = stats.bytesCopied;
        for (int i = 0; i < SIZES.size(); i++) {
            int n = SIZES.get(i);
            if (me == 0) {
                world.recv(new byte[1], peer, READY + i);
                world.send(pattern(0, 1, i, n), n, Datatype.BYTE, peer, i);
                Request echo = world.irecv(buffer, LARGEST, Datatype.BYTE, peer, i);
                world.send(new byte[1], peer, READY + i);
                check(echo.await().byteCount() == n, "echo of " + n + " bytes has the wrong length");
            } else {
                Request r = world.irecv(buffer, LARGEST, Datatype.BYTE, peer, i);
                world.send(new byte[1], peer, READY + i);
                check(r.await().byteCount() == n, "message of " + n + " bytes has the wrong length");
                world.recv(new byte[1], peer, READY + i);
                world.send(buffer, n, Datatype.BYTE, peer, i);
            }
            check(firstMismatch(buffer, 0, 1, i, n) == -1, "payload of " + n + " bytes differs at rank " + me);
            payload += n;
        }
        long large = SIZES.stream().filter(n -> n >= SINGLE_COPY).count();
        check(stats.singleCopyAccepted == large, "rank " + me + " accepted " + stats.singleCopyAccepted + " of " + large);
        System.out.println("rank=" + me + " accepted=" + stats.singleCopyAccepted + " singleCopies=" + stats.singleCopyMessages
                + " copied=" + (stats.bytesCopied - before) + " payload=" + payload);
    }

    /** Rank 0 dies after the first chunk it copies into rank 1's buffer. */
    private static void senderDies(Communicator world) {
        MemorySegment buffer = world.allocate(LARGEST);
        if (world.rank() == 0) {
            endpoint(world).singleCopy().observeChunks((send, copied) -> Runtime.getRuntime().halt(DIED));
            world.recv(new byte[1], 1, READY);
            world.send(new byte[LARGEST], 1, 0);
            throw new AssertionError("rank 0 should have died in its send");
        }
        Request r = world.irecv(buffer, LARGEST, Datatype.BYTE, 0, 0);
        long start = System.nanoTime();
        world.send(new byte[1], 0, READY);
        try {
            r.await();
            throw new AssertionError("the receive completed though its sender died in the middle of the copy");
        } catch (ProcessFailedException expected) {
            check(expected.failedRank() == 0, "the failure names rank " + expected.failedRank());
            System.out.println("rank=1 procFailedMs=" + (System.nanoTime() - start) / 1_000_000);
        }
    }

    /** Rank 1's program throws (main hands the throwable to {@code failed}); rank 0 receives from it. */
    private static void peerThrows(Communicator world) {
        if (world.rank() == 1) {
            throw new IllegalStateException("rank 1 throws on purpose");
        }
        try {
            world.recv(new byte[1], 1, 0);
            throw new AssertionError("the receive completed though rank 1 sent nothing");
        } catch (ProcessFailedException expected) {
            System.out.println("rank=0 failure=" + expected.getMessage());
        }
    }

    /** Rank 1 dies with rank 0's single-copy offer unanswered. */
    private static void receiverDies(Communicator world) {
        MailboxEndpoint endpoint = endpoint(world);
        ExternalMemory device = endpoint.deviceForTests();
        MailboxLayout layout = endpoint.layout();
        if (world.rank() == 1) {
            world.allocate(LARGEST);
            long slot = layout.slotAddress(MailboxLayout.pairSlotsBase(layout.mailboxAddress(0, 1)), 1,
                    layout.config().slotsPerMailbox());
            while (device.getLongAcquire(slot + SlotDescriptor.TICKET_OFFSET) != 1) {
                Thread.onSpinWait();
            }
            check((device.getInt(slot + SlotDescriptor.FLAGS_OFFSET) & SlotDescriptor.FLAG_RENDEZVOUS) != 0,
                    "the first message is a single-copy offer");
            Runtime.getRuntime().halt(DIED);
        }
        long word = layout.rankEntry(1) + RankTableDescriptor.DEVICE_BUFFER_BYTES_OFFSET;
        while (device.getLongAcquire(word) == 0) {
            Thread.onSpinWait();
        }
        long start = System.nanoTime();
        try {
            world.send(new byte[LARGEST], 1, 0);
            throw new AssertionError("the send completed though its receiver died before answering");
        } catch (ProcessFailedException expected) {
            check(expected.failedRank() == 1, "the failure names rank " + expected.failedRank());
            check(endpoint.operations().heapBytesInUse() == 0, "heap bytes still in use: " + endpoint.operations().heapBytesInUse());
            System.out.println("rank=0 procFailedMs=" + (System.nanoTime() - start) / 1_000_000);
        }
    }

    private static void check(boolean condition, String failure) {
        if (!condition) {
            throw new AssertionError(failure);
        }
    }
}
