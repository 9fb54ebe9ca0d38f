package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.pcie.MailboxProvider;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.collective.PointToPointCollectives;

/** Worlds, reference data and byte comparisons for the collective tests. */
final class CollectiveTesting {
    /** The rank counts every collective is tested at (issue 5). */
    static final int[] RANK_COUNTS = {1, 2, 3, 4, 5, 7, 8, 16};

    /** A program run by every rank on its communicator. */
    @FunctionalInterface
    interface CommProgram {
        void run(Communicator comm) throws Exception;
    }

    private CollectiveTesting() {
    }

    /**
     * Small mailboxes and a small inline threshold, so that collectives of a few hundred bytes
     * already go by indirection, fill rings and queue sends; 1 MiB of heap per rank keeps 16-rank
     * devices small.
     */
    static JobOptions options(int ranks) {
        return JobOptions.ofRanks(ranks)
                .with("lockstep.device", "emulated")
                .with("lockstep.mailbox.inlineThreshold", "256")
                .with("lockstep.mailbox.slots", "8")
                .with("lockstep.mailbox.asyncSlots", "16")
                .with("lockstep.mailbox.heapPerRank", "1m");
    }

    static void run(int ranks, CommProgram program) {
        run(options(ranks), PointToPointCollectives.INSTANCE, program);
    }

    static void run(int ranks, CollectiveEngine engine, CommProgram program) {
        run(options(ranks), engine, program);
    }

    /**
     * Runs {@code program} on every rank: with the default engine on the world communicator itself
     * (the mailbox transport's collectives, end to end), with any other engine on an
     * {@link EngineCommunicator} that runs it.
     */
    static void run(JobOptions options, CollectiveEngine engine, CommProgram program) {
        new MailboxProvider().runInThreads(options, world -> program.run(
                engine == PointToPointCollectives.INSTANCE ? world : new EngineCommunicator(world, engine)));
    }

    // ---------------------------------------------------------------- reference data

    /** SplitMix64's finaliser: every bit of the result depends on every bit of {@code x}. */
    static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }

    /** Byte {@code i} of rank {@code rank}'s data in test case {@code salt}. */
    static byte dataByte(int rank, long i, long salt) {
        return (byte) mix(mix(salt * 0x9E3779B97F4A7C15L + rank) + i);
    }

    /** Zeroed heap memory of {@code bytes} bytes. */
    static MemorySegment bytes(long bytes) {
        return MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
    }

    static MemorySegment pattern(int rank, long bytes, long salt) {
        MemorySegment s = MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
        fill(s, 0, bytes, rank, salt);
        return s;
    }

    /** Writes rank {@code rank}'s data bytes [0, bytes) at {@code offset} of {@code target}. */
    static void fill(MemorySegment target, long offset, long bytes, int rank, long salt) {
        for (long i = 0; i < bytes; i++) {
            target.set(ValueLayout.JAVA_BYTE, offset + i, dataByte(rank, i, salt));
        }
    }

    /** Data bytes [from, from + bytes) of {@code rank} at {@code offset} of {@code target}. */
    static void fillRange(MemorySegment target, long offset, long from, long bytes, int rank, long salt) {
        for (long i = 0; i < bytes; i++) {
            target.set(ValueLayout.JAVA_BYTE, offset + i, dataByte(rank, from + i, salt));
        }
    }

    /** Fails unless {@code actual[offset, offset + bytes)} holds rank {@code rank}'s data bytes [from, from + bytes). */
    static void assertData(MemorySegment actual, long offset, long from, long bytes, int rank, long salt, String what) {
        for (long i = 0; i < bytes; i++) {
            byte expected = dataByte(rank, from + i, salt);
            byte got = actual.get(ValueLayout.JAVA_BYTE, offset + i);
            if (got != expected) {
                fail(what + ": byte " + i + " of rank " + rank + "'s block (at " + (offset + i) + ") is " + got
                        + ", expected " + expected);
            }
        }
    }

    static void assertSameBytes(MemorySegment expected, MemorySegment actual, String what) {
        long mismatch = expected.mismatch(actual);
        if (mismatch >= 0) {
            fail(what + ": first difference at byte " + mismatch + " of " + expected.byteSize()
                    + (mismatch < Math.min(expected.byteSize(), actual.byteSize())
                    ? " (expected " + expected.get(ValueLayout.JAVA_BYTE, mismatch) + ", got "
                    + actual.get(ValueLayout.JAVA_BYTE, mismatch) + ")" : " (lengths " + expected.byteSize()
                    + " and " + actual.byteSize() + ")"));
        }
    }
}
