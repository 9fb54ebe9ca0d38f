package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;

/**
 * {@code MPI_Comm_split} across real processors: once its members have all given their color and
 * key, each processor sends them to the others (one COLORS frame each); with every color known,
 * each processor forms the same groups (their keys derive from the parent's, the call and the
 * color, so no processor has to name them for the others). Dup needs no frames at all.
 */
final class SpanningSplit {
    private final CallSynchronisation calls;
    private final Remote remote;
    private final CommunicatorCalls communicators;

    SpanningSplit(CallSynchronisation calls, Remote remote, CommunicatorCalls communicators) {
        this.calls = calls;
        this.remote = remote;
        this.communicators = communicators;
    }

    EmCommunicator split(EmCommunicator c, int color, int key) {
        if (color < 0 && color != Communicator.UNDEFINED) {
            throw new LockstepException(ErrorClass.ARG, "split color " + color + " is negative and not UNDEFINED");
        }
        Group group = c.vpGroup();
        CallState call = calls.enter(c, "split");
        int rank = c.rank();
        calls.locked(() -> {
            call.colors[rank] = color;
            call.keys[rank] = key;
            if (call.arrivals.increment() == group.localMembers()) {
                long[] triples = new long[3 * group.localMembers()];
                int t = 0;
                for (int r = 0; r < group.size(); r++) {
                    if (group.isLocal(r)) {
                        triples[t++] = r;
                        triples[t++] = call.colors[r];
                        triples[t++] = call.keys[r];
                    }
                }
                call.io.control(group.otherProcessors(), triples.length * 8L);
                remote.toOthers(group, Frame.of(FrameKind.COLORS, group.key(), call.sequence, 0, 0, 0)
                        .with(MemorySegment.ofArray(triples)), call);
            }
            formIfComplete(group, call);
        });
        calls.await(c, call, call.arrivals::isSet, call.arrivals, "split waiting for every rank's color");
        Group mine = call.splitGroups[rank];
        calls.leave(c, call);
        return mine == null ? null : c.on(mine);
    }

    /** A COLORS frame (agent). */
    void colors(Group group, CallState call, Frame frame) {
        MemorySegment p = frame.payload();
        calls.locked(() -> {
            for (long i = 0; i + 2 < p.byteSize() / 8; i += 3) {
                int r = (int) p.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
                call.colors[r] = (int) p.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i + 1);
                call.keys[r] = (int) p.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i + 2);
            }
            call.span.reports[SpanningState.ARRIVALS]++;
            formIfComplete(group, call);
        });
    }

    private void formIfComplete(Group group, CallState call) {
        if (!call.arrivals.isSet() && call.arrivals.count() == group.localMembers() && call.span.allReported(SpanningState.ARRIVALS)) {
            communicators.formSplitGroups(group, call);
            call.arrivals.set(calls.scheduler());
        }
    }
}
