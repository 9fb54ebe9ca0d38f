package org.lockstep.pcie.collective;

import java.util.function.BooleanSupplier;

import org.lockstep.spi.device.ExternalMemory;

/**
 * A device-native collective as a state machine over its communicator's {@link CollectiveArea}:
 * {@link #advance()} does what the members' words allow and returns, never waiting. The blocking
 * collective runs it to its end ({@link CollectiveArea#run}); the non-blocking one is advanced by
 * its request's test and wait and by the endpoint's progress ({@link StartedDeviceCollectives}).
 * It begins only when its turn comes — every earlier device collective of the communicator is
 * done on this rank — so all members take epochs and chunks in the same order (MPI 4.1 §6.12:
 * collectives are ordered per communicator).
 */
abstract class DeviceOperation implements BooleanSupplier {
    final CollectiveArea area;
    final ExternalMemory device;
    private boolean begun;
    /** Polls that found a word short of its value: every {@link CollectiveArea#PROGRESS_INTERVAL}-th also asks after its writer. */
    private int misses;

    DeviceOperation(CollectiveArea area) {
        this.area = area;
        this.device = area.device;
    }

    /** Advances as far as the members' words allow, never waiting; true once the collective is done on this rank. */
    final boolean advance() {
        if (!begun) {
            begun = true;
            begin();
        }
        return proceed();
    }

    /** Makes a finished (or failed) operation ready to run again from its beginning; subclasses reset their own state too. */
    void rearm() {
        begun = false;
    }

    /** {@link #advance()}: the blocking form waits on the operation itself, with no lambda made per call. */
    @Override
    public final boolean getAsBoolean() {
        return advance();
    }

    /** What the collective writes as its turn comes (an arrival, say); nothing by default. */
    void begin() {
    }

    /** The rest: true once done. */
    abstract boolean proceed();

    /** Whether this poll is one that also asks whether the awaited writer is gone (a lock of the endpoint: not every poll). */
    final boolean watchNow() {
        return ++misses % CollectiveArea.PROGRESS_INTERVAL == 0;
    }

    /**
     * Whether the word at {@code address}, written by member {@code writer} only, has reached
     * {@code value}; fails if the writer is gone short of it (read again after its end was seen:
     * what it wrote before it ended is visible then).
     */
    final boolean reached(long address, long value, int writer, String collective) {
        if (area.getAcquire(address) >= value) {
            return true;
        }
        if (watchNow() && area.site.isGone(writer) && area.getAcquire(address) < value) {
            throw area.site.failure(writer, collective);
        }
        return false;
    }

    /**
     * Polls the other members' word at {@code offset} of their blocks, from member
     * {@code rank + from} on (modulo the size; {@code from} in 1 .. size − 1), and returns the first
     * {@code from} whose word is short of {@code value}, or the size once all have reached it.
     */
    final int reachedFrom(int from, int offset, long value, String collective) {
        int k = from;
        while (k < area.size) {
            int q = (area.rank + k) % area.size;
            if (!reached(area.block(q) + offset, value, q, collective)) {
                return k;
            }
            k++;
        }
        return k;
    }
}
