package org.lockstep.embsp.comm;

import org.lockstep.embsp.net.Frame;

/**
 * The collectives of groups whose members several real processors simulate, one class per
 * family, and the routing of the frames they exchange to the family that speaks them.
 */
final class SpanningCollectives {
    final SpanningBarrier barrier;
    final SpanningRooted rooted;
    final SpanningAllgather allgather;
    final SpanningAlltoall alltoall;
    final SpanningFolds folds;
    final SpanningSplit split;
    private final IndirectAlltoall indirect;
    private final CallSynchronisation calls;
    private final Remote remote;

    SpanningCollectives(CallSynchronisation calls, Remote remote, CommunicatorCalls communicators, IndirectAlltoall indirect) {
        this.indirect = indirect;
        this.calls = calls;
        this.remote = remote;
        this.barrier = new SpanningBarrier(calls, remote);
        this.rooted = new SpanningRooted(calls, remote);
        this.allgather = new SpanningAllgather(calls, remote);
        this.alltoall = new SpanningAlltoall(calls, remote);
        this.folds = new SpanningFolds(calls, remote);
        this.split = new SpanningSplit(calls, remote, communicators);
    }

    /** A frame for {@code call} of {@code group} (agent). */
    void handle(Group group, CallState call, Frame frame) {
        switch (frame.kind()) {
            case COUNT -> calls.locked(() -> {
                int counter = (int) frame.a();
                call.span.reports[counter]++;
                call.span.reported[counter] += frame.b();
                call.arrivals.wakeAll(calls.scheduler());
                call.finished.wakeAll(calls.scheduler());
            });
            case ROOT_READY -> rooted.rootReady(group, call);
            case RECORDED -> allgather.recorded(group, call, frame);
            case COLORS -> split.colors(group, call, frame);
            case SUMMARY -> alltoall.summary(group, call, frame);
            case DATA -> {
                String operation;
                calls.scheduler().lock().lock();
                try {
                    operation = call.operation;
                } finally {
                    calls.scheduler().lock().unlock();
                }
                if ("gather".equals(operation) || "gatherv".equals(operation)) {
                    rooted.gathered(group, call, frame);
                } else {
                    alltoall.data(call, frame);
                }
            }
            case SLOT_DATA -> indirect.slotData(group, call, frame);
            case PULL -> remote.pullRequested(group, call, frame);
            case FOLD, RESULT -> folds.value(group, call, frame);
            default -> throw new IllegalStateException("no collective speaks " + frame.kind());
        }
    }
}
