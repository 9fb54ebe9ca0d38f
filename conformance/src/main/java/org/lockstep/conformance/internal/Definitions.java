package org.lockstep.conformance.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Set;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.Group;
import org.lockstep.conformance.Level;
import org.lockstep.conformance.Origin;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleViolation;

/** Helpers shared by the rule definitions. */
final class Definitions {
    /** The tag of {@link #atRankZero}'s messages; no rule's own traffic uses it. */
    private static final int AT_RANK_ZERO_TAG = 9_999;

    private Definitions() {
    }

    static Rule messaging(Group group, int number, Level level, String name, String summary, List<Origin> origins,
                          Rule.MessagingCheck check) {
        return new Rule(group, number, level, name, summary, origins, Set.of(), check);
    }

    static Rule optional(Group group, int number, Capability needs, String name, String summary, List<Origin> origins,
                         Rule.MessagingCheck check) {
        return new Rule(group, number, Level.OPTIONAL, name, summary, origins, Set.of(needs), check);
    }

    static Rule device(int number, Level level, String name, String summary, List<Origin> origins, Rule.DeviceCheck check) {
        return new Rule(Group.DEV, number, level, name, summary, origins, Set.of(), check);
    }

    /** A payload of {@code bytes} bytes whose first int is {@code sequence} (the rest patterned by it). */
    static MemorySegment numbered(int sequence, int bytes) {
        MemorySegment s = MemorySegment.ofArray(new byte[Math.max(bytes, Integer.BYTES)]);
        org.lockstep.conformance.PayloadPattern.fill(s, sequence, s.byteSize());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, sequence);
        return s.asSlice(0, Math.max(bytes, Integer.BYTES));
    }

    static int sequenceOf(MemorySegment s) {
        return s.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
    }

    /** Fails unless {@code call} throws a {@link LockstepException} of class {@code expected}. */
    static void expectError(ErrorClass expected, String what, Runnable call) {
        try {
            call.run();
        } catch (LockstepException e) {
            if (e.errorClass() != expected) {
                throw new RuleViolation(what + " failed with " + e.errorClass() + " (" + e.getMessage() + "), MPI says "
                        + expected.mpiName());
            }
            return;
        }
        throw new RuleViolation(what + " was accepted; MPI says it fails with " + expected.mpiName());
    }

    /**
     * Every rank's {@code values} (one length on all ranks) at rank 0, by point-to-point messages;
     * null on the other ranks. How a check compares what the ranks saw without sharing memory, so
     * that it holds where the ranks are separate processes (a kit job under a launcher).
     */
    static long[][] atRankZero(Communicator w, long[] values) {
        if (w.rank() != 0) {
            w.send(MemorySegment.ofArray(values), values.length, Datatype.LONG, 0, AT_RANK_ZERO_TAG);
            return null;
        }
        long[][] all = new long[w.size()][];
        all[0] = values;
        for (int r = 1; r < w.size(); r++) {
            all[r] = new long[values.length];
            w.recv(MemorySegment.ofArray(all[r]), values.length, Datatype.LONG, r, AT_RANK_ZERO_TAG);
        }
        return all;
    }
}
