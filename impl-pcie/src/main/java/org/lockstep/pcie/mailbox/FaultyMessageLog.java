package org.lockstep.pcie.mailbox;

import java.time.Duration;
import java.util.List;
import java.util.function.IntPredicate;

import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The message log with the compatibility kit's deliberate breakages ({@link TransportFaults}),
 * installed in its place when the kit's self-test asks for them ({@link MailboxOptions#FAULTS}),
 * so that the kit's checkpoint rules can show they catch a transport that really has these bugs.
 * Never for production; the transport itself knows nothing of them.
 */
final class FaultyMessageLog extends MessageLog {

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final TransportFaults faults;

    FaultyMessageLog(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, HeapAllocator heap,
                     TransportStatistics statistics, IntPredicate gone, Duration fullWait, TransportFaults faults) {
        super(device, layout, rank, incarnation, heap, statistics, gone, fullWait);
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.faults = faults;
    }

    /**
     * {@link TransportFaults.Fault#FREES_ON_RECEIPT}: the receiver publishes (persisted) its
     * release cursor for what it consumed at once, as if a checkpoint covered it.
     */
    @Override
    public void consumed(int source, long first, long last) {
        super.consumed(source, first, last);
        if (first <= 0 || !faults.has(TransportFaults.Fault.FREES_ON_RECEIPT)) {
            return;
        }
        long cursor = layout.releaseCursorAddress(rank, source);
        if (device.getLongAcquire(cursor) < last) {
            device.putLongRelease(cursor, last);
            device.persist(cursor, Long.BYTES);
        }
    }

    /**
     * {@link TransportFaults.Fault#REPLAYS_OUT_OF_ORDER}: in each channel's replay (in sequence
     * order), the first two messages, when both are whole (unfragmented), swap sequence numbers,
     * so that the second is delivered first.
     */
    @Override
    Recovery recover() {
        Recovery recovery = super.recover();
        if (faults.has(TransportFaults.Fault.REPLAYS_OUT_OF_ORDER)) {
            for (List<IncomingMessage> replay : recovery.replay) {
                if (replay.size() < 2 || !whole(replay.get(0)) || !whole(replay.get(1))) {
                    continue;
                }
                IncomingMessage first = replay.get(0);
                IncomingMessage second = replay.get(1);
                replay.set(0, withSequence(second, first.sequence));
                replay.set(1, withSequence(first, second.sequence));
            }
        }
        return recovery;
    }

    /** {@link TransportFaults.Fault#FORGETS_WILDCARD_ORDER}: a restarted rank's wildcard receives skip the logged matches. */
    @Override
    public long[] replayedWildcard() {
        return faults.has(TransportFaults.Fault.FORGETS_WILDCARD_ORDER) ? null : super.replayedWildcard();
    }

    private static boolean whole(IncomingMessage m) {
        return m.length == m.messageLength;
    }

    private static IncomingMessage withSequence(IncomingMessage m, long sequence) {
        return new IncomingMessage(m.slotAddress, m.ticket, sequence, m.source, m.tag, m.context, m.length, m.messageLength, m.flags,
                m.payloadAddress, m.payloadLockAddress);
    }
}
