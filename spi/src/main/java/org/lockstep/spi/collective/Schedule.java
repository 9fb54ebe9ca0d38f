package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * A collective algorithm as a list of rounds (libNBC's schedule): each round is an ordered list of
 * steps — sends, receives and local work (copies, reductions). Starting a round runs its steps in
 * order: local work at once, sends and receives by posting them on the channel; the round ends
 * when every message it posted has completed, and the next one starts.
 *
 * <p>The same schedule serves the blocking collective ({@link #run()}) and the non-blocking one
 * ({@link #start()}): the request it returns advances the rounds whenever it is tested or waited
 * on, without a thread of its own, so it may run beside point-to-point traffic and other
 * collectives. Waiting on one schedule also advances the others the same thread has started, so a
 * rank may complete its non-blocking collectives in any order.
 *
 * <p>Messages go as bytes ({@link Datatype#BYTE}) on the collective channel, tagged with the
 * channel's call sequence and the step the algorithm gives ({@link CollectiveTag}). Local work put
 * after a send or receive in the same round overlaps with that message; it must not touch the
 * memory the message reads or writes.
 */
public final class Schedule {
    /** One step of a round. */
    sealed interface Step permits Transfer, Local {
    }

    record Transfer(boolean send, int peer, MemorySegment data, int tag) implements Step {
    }

    record Local(Runnable work) implements Step {
    }

    private final Communicator channel;
    private final int tagBase;
    private final List<List<Step>> rounds = new ArrayList<>();
    private List<Step> current = new ArrayList<>();
    private boolean started;
    /** Scratch arrays of this schedule, back to the thread's pool once it has completed. */
    private final List<long[]> scratch = new ArrayList<>();

    /** A new, empty schedule: the next collective on {@code channel} (it takes the next call sequence). */
    public Schedule(Communicator channel) {
        this(channel, CollectiveTag.base(ChannelState.of(channel).nextSequence()));
    }

    private Schedule(Communicator channel, int tagBase) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.tagBase = tagBase;
    }

    /**
     * A schedule on a channel private to one family of collectives, which every rank starts in the
     * same order: its tags are the steps alone (below 4096, within any MPI library's tag bound),
     * since messages and receives of successive calls between two ranks pair in order anyway.
     */
    static Schedule onPrivateChannel(Communicator channel) {
        return new Schedule(channel, 0);
    }

    /** The channel the schedule's messages go over. */
    public Communicator channel() {
        return channel;
    }

    /** Sends all of {@code data} to {@code dest} as message {@code step} of the algorithm. */
    public Schedule send(int dest, MemorySegment data, int step) {
        return add(new Transfer(true, dest, data, CollectiveTag.of(tagBase, step)));
    }

    /** Receives message {@code step} from {@code source} into {@code into}, which it must fill exactly. */
    public Schedule recv(int source, MemorySegment into, int step) {
        return add(new Transfer(false, source, into, CollectiveTag.of(tagBase, step)));
    }

    /**
     * {@code bytes} bytes of scratch memory for this schedule (8-byte aligned, contents undefined),
     * reused by later collectives of the thread once this one has completed.
     */
    public MemorySegment scratch(long bytes) {
        if (bytes == 0) {
            return Buffers.EMPTY;
        }
        long words = (bytes + Long.BYTES - 1) / Long.BYTES;
        if (words > Integer.MAX_VALUE - 8) {
            throw new org.lockstep.api.LockstepException(org.lockstep.api.ErrorClass.NO_MEM, "a collective needs " + bytes
                    + " bytes of scratch memory, more than one heap array holds");
        }
        long[] array;
        try {
            array = ScratchPool.take((int) words);
        } catch (OutOfMemoryError e) {
            throw new org.lockstep.api.LockstepException(org.lockstep.api.ErrorClass.NO_MEM, "a collective could not get "
                    + bytes + " bytes of scratch memory", e);
        }
        scratch.add(array);
        return MemorySegment.ofArray(array).asSlice(0, bytes);
    }

    /** Copies {@code from} over {@code to} (of the same length). */
    public Schedule copy(MemorySegment from, MemorySegment to) {
        if (from.byteSize() != to.byteSize()) {
            throw new IllegalArgumentException("copy of " + from.byteSize() + " bytes into " + to.byteSize());
        }
        if (from.byteSize() == 0) {
            return this;
        }
        return add(new Local(() -> Buffers.copy(from, to)));
    }

    /** {@code inout = in op inout}, element-wise over {@code inout}'s length ({@code in} is the left operand). */
    public Schedule reduce(Op op, Datatype type, MemorySegment in, MemorySegment inout) {
        long count = inout.byteSize() / type.size();
        if (in.byteSize() != inout.byteSize() || count * type.size() != inout.byteSize()) {
            throw new IllegalArgumentException("reduction of " + in.byteSize() + " into " + inout.byteSize()
                    + " bytes of " + type);
        }
        if (count == 0) {
            return this;
        }
        return add(new Local(() -> op.apply(in, inout, count, type)));
    }

    /** Any other local work, run in its place in the round. */
    public Schedule local(Runnable work) {
        return add(new Local(Objects.requireNonNull(work, "work")));
    }

    /** Ends the current round: what is added next starts only once its messages have completed. */
    public Schedule endRound() {
        if (!current.isEmpty()) {
            rounds.add(current);
            current = new ArrayList<>();
        }
        return this;
    }

    /** Number of rounds (after {@link #endRound()}). */
    public int rounds() {
        return rounds.size() + (current.isEmpty() ? 0 : 1);
    }

    /** Starts the first round and returns the request that completes with the last. */
    public Request start() {
        if (started) {
            throw new IllegalStateException("schedule already started");
        }
        started = true;
        endRound();
        ScheduleRequest request = new ScheduleRequest(channel, List.copyOf(rounds), ProgressGroup.current(), List.copyOf(scratch));
        request.begin();
        return request;
    }

    /**
     * Advances every schedule the calling thread has started and not completed, once. A provider
     * may call it while a rank blocks in a point-to-point wait, so that the rank's non-blocking
     * collectives keep moving then too (MPI's progress rule); a nested call returns at once. The
     * thread's {@link ProgressAgents} (the targets of its windows) run too.
     *
     * @return whether any schedule moved
     */
    public static boolean progressPending() {
        boolean moved = ProgressGroup.current().advanceOthers(null);
        return ProgressAgents.advance() | moved;
    }

    /** Runs the schedule to completion (the blocking collective). */
    public void run() {
        start().await();
    }

    private Schedule add(Step step) {
        if (started) {
            throw new IllegalStateException("schedule already started");
        }
        current.add(step);
        return this;
    }
}
