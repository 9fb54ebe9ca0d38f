package org.lockstep.pcie.mailbox;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Status;

/** Worlds and helpers for the checkpoint tests: ranks are driven one step at a time from the test thread. */
final class CheckpointTesting {
    private CheckpointTesting() {
    }

    /** A checkpointing job with restart on failure, small mailboxes and heap. */
    static JobOptions options(int ranks) {
        return TestWorlds.options(ranks)
                .with(Checkpoints.ENABLED_PROPERTY, "true")
                .with(Checkpoints.STATE_BYTES_PROPERTY, "64k")
                .with(Checkpoints.RESTART_ON_FAILURE_PROPERTY, "true")
                .with(MailboxOptions.HEAP_PER_RANK, "256k");
    }

    /** Makes progress on {@code communicator} (places its queued sends, drains its mailboxes). */
    static void pump(Communicator communicator) {
        communicator.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
    }

    /** Receives one long[2] from {@code source} (or ANY_SOURCE), pumping {@code others} until it is there; returns {v0, v1, source}. */
    static long[] receive(Communicator receiver, int source, Communicator... others) {
        for (int spins = 0; ; spins++) {
            Optional<Status> there = receiver.iprobe(source, Communicator.ANY_TAG);
            if (there.isPresent()) {
                break;
            }
            for (Communicator other : others) {
                pump(other);
            }
            if (spins > 5_000_000) {
                throw new AssertionError("no message from " + source + " arrived at rank " + receiver.rank());
            }
        }
        long[] value = new long[2];
        Status status = receiver.recv(value, source, Communicator.ANY_TAG);
        return new long[] {value[0], value[1], status.source()};
    }

    static MemorySegment longs(int n) {
        return Arena.ofAuto().allocate(8L * n, 8);
    }

    static long get(MemorySegment s, int i) {
        return s.getAtIndex(ValueLayout.JAVA_LONG, i);
    }

    static void set(MemorySegment s, int i, long v) {
        s.setAtIndex(ValueLayout.JAVA_LONG, i, v);
    }

    /** The endpoint behind a world communicator of the mailbox transport. */
    static MailboxEndpoint endpoint(MailboxThreadWorld world, int rank) {
        return world.endpoint(rank);
    }
}
