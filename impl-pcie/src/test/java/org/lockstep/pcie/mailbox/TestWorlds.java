package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.JobOptions;
import org.lockstep.api.RankProgram;
import org.lockstep.pcie.MailboxProvider;

/** Runs programs on small thread worlds over the emulated device, with test-sized mailboxes. */
final class TestWorlds {
    /** The indirection threshold the tests use: small, so that sizes around it are cheap. */
    static final int THRESHOLD = 256;

    private TestWorlds() {
    }

    static JobOptions options(int ranks) {
        return JobOptions.ofRanks(ranks)
                .with(MailboxOptions.DEVICE, "emulated")
                .with(MailboxOptions.INLINE_THRESHOLD, Integer.toString(THRESHOLD))
                .with(MailboxOptions.SLOTS, "8")
                .with(MailboxOptions.ASYNC_SLOTS, "16")
                .with(MailboxOptions.HEAP_PER_RANK, "1m");
    }

    static void run(int ranks, RankProgram program) {
        new MailboxProvider().runInThreads(options(ranks), program);
    }

    static void run(JobOptions options, RankProgram program) {
        new MailboxProvider().runInThreads(options, program);
    }

    /** A payload whose every byte depends on (source, dest, index, position), so any misdelivery shows. */
    static byte patternByte(int source, int dest, long index, long position) {
        long h = source * 0x9E3779B97F4A7C15L ^ dest * 0xC2B2AE3D27D4EB4FL ^ index * 0x165667B19E3779F9L ^ position * 0x27D4EB2F165667C5L;
        return (byte) (h ^ (h >>> 29) ^ (h >>> 47));
    }

    static MemorySegment pattern(int source, int dest, long index, int length) {
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        for (int i = 0; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, patternByte(source, dest, index, i));
        }
        return s;
    }

    /** Index of the first byte that differs from the pattern, or -1. */
    static long firstMismatch(MemorySegment s, int source, int dest, long index, long length) {
        for (long i = 0; i < length; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != patternByte(source, dest, index, i)) {
                return i;
            }
        }
        return -1;
    }
}
