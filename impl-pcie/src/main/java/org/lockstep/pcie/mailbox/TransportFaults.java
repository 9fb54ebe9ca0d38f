package org.lockstep.pcie.mailbox;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.collective.CollectiveSite;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Deliberate breakages of the message log, switched on by {@link MailboxOptions#FAULTS}, so that
 * the compatibility kit's self-test can check that its checkpoint rules catch a transport that
 * really has these bugs. Never for production. Each fault is one call from the transport, in the
 * place the bug would sit; without faults every call does nothing.
 */
final class TransportFaults {
    /** The breakages, named as in the job property. */
    enum Fault {
        /** A receiver releases what it consumed at once, as if a checkpoint covered it: senders reclaim it too early. */
        FREES_ON_RECEIPT,
        /** At recovery, the first two whole messages of each channel's replay take each other's place. */
        REPLAYS_OUT_OF_ORDER,
        /** A restarted rank's wildcard receives ignore the logged matching order and match freely. */
        FORGETS_WILDCARD_ORDER,
        /** The direct allreduce folds each segment from rank 0's input up: c(p−1) op (… op c0). */
        DIRECT_FOLD_REVERSED,
        /** The shared broadcast leaves out the last piece of every receive buffer. */
        SHARED_BCAST_SKIPS_LAST_PIECE
    }

    static final TransportFaults NONE = new TransportFaults(EnumSet.noneOf(Fault.class));

    private final Set<Fault> faults;
    // Read on every consumed message: plain fields, not a set lookup.
    private final boolean freesOnReceipt;
    private final boolean replaysOutOfOrder;
    private final boolean forgetsWildcardOrder;

    private TransportFaults(Set<Fault> faults) {
        this.faults = Set.copyOf(faults);
        this.freesOnReceipt = faults.contains(Fault.FREES_ON_RECEIPT);
        this.replaysOutOfOrder = faults.contains(Fault.REPLAYS_OUT_OF_ORDER);
        this.forgetsWildcardOrder = faults.contains(Fault.FORGETS_WILDCARD_ORDER);
    }

    /** The faults a comma-separated list of {@link Fault} names asks for (blank: none). */
    static TransportFaults parse(String names) {
        EnumSet<Fault> chosen = EnumSet.noneOf(Fault.class);
        for (String name : names.split(",")) {
            String n = name.strip();
            if (n.isEmpty()) {
                continue;
            }
            try {
                chosen.add(Fault.valueOf(n.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new LockstepException(ErrorClass.ARG, MailboxOptions.FAULTS + "=" + names + " names the unknown fault '" + n
                        + "' (known: " + Arrays.toString(Fault.values()) + ")");
            }
        }
        return chosen.isEmpty() ? NONE : new TransportFaults(chosen);
    }

    boolean has(Fault fault) {
        return faults.contains(fault);
    }

    /**
     * {@link Fault#FREES_ON_RECEIPT}: {@code receiver} has consumed {@code source}'s messages up to
     * {@code last}, and publishes (persisted) its release cursor for them without a checkpoint.
     */
    void consumed(ExternalMemory device, MailboxLayout layout, int receiver, int source, long last) {
        if (!freesOnReceipt) {
            return;
        }
        long cursor = layout.releaseCursorAddress(receiver, source);
        if (device.getLongAcquire(cursor) < last) {
            device.putLongRelease(cursor, last);
            device.persist(cursor, Long.BYTES);
        }
    }

    /**
     * {@link Fault#REPLAYS_OUT_OF_ORDER}: in each channel's replay (in sequence order), the first two
     * messages, when both are whole (unfragmented), swap sequence numbers, so that the second is
     * delivered first.
     */
    void replaying(List<List<IncomingMessage>> replayPerSource) {
        if (!replaysOutOfOrder) {
            return;
        }
        for (List<IncomingMessage> replay : replayPerSource) {
            if (replay.size() < 2 || !whole(replay.get(0)) || !whole(replay.get(1))) {
                continue;
            }
            IncomingMessage first = replay.get(0);
            IncomingMessage second = replay.get(1);
            replay.set(0, withSequence(second, first.sequence));
            replay.set(1, withSequence(first, second.sequence));
        }
    }

    /** The collectives' faults, as the collectives see them. */
    CollectiveSite.Faults collectiveFaults() {
        return new CollectiveSite.Faults(faults.contains(Fault.DIRECT_FOLD_REVERSED),
                faults.contains(Fault.SHARED_BCAST_SKIPS_LAST_PIECE));
    }

    /** {@link Fault#FORGETS_WILDCARD_ORDER}: whether a restarted rank's wildcard receives skip the logged matches. */
    boolean forgetsWildcardOrder() {
        return forgetsWildcardOrder;
    }

    private static boolean whole(IncomingMessage m) {
        return m.length == m.messageLength;
    }

    private static IncomingMessage withSequence(IncomingMessage m, long sequence) {
        return new IncomingMessage(m.slotAddress, m.ticket, sequence, m.source, m.tag, m.context, m.length, m.messageLength, m.flags,
                m.payloadAddress, m.payloadLockAddress);
    }

    @Override
    public String toString() {
        return "TransportFaults" + faults;
    }
}
