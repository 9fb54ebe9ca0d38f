package org.lockstep.pcie.mailbox;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.collective.CollectiveSite;

/**
 * Deliberate breakages of the message log, switched on by {@link #PROPERTY}, so that
 * the compatibility kit's self-test can check that its checkpoint rules catch a transport that
 * really has these bugs. Never for production. The message log's faults live in a
 * {@link FaultyMessageLog} installed in place of the log; the transport makes no call for them.
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
        SHARED_BCAST_SKIPS_LAST_PIECE,
        /** The broadcast written once (blocking or not) reads the root's chunk without waiting for its publication. */
        BCAST_READS_UNPUBLISHED
    }

    /**
     * The job property naming the faults: a comma-separated list of {@link Fault} names, for the
     * kit's self-test only, so that it can check its rules catch a transport that really has those
     * bugs. Unset or blank: none.
     */
    static final String PROPERTY = "lockstep.mailbox.faults";

    static final TransportFaults NONE = new TransportFaults(EnumSet.noneOf(Fault.class));

    private final Set<Fault> faults;

    private TransportFaults(Set<Fault> faults) {
        this.faults = Set.copyOf(faults);
    }

    /** The faults {@link #PROPERTY} asks for (none by default). */
    static TransportFaults from(org.lockstep.api.JobOptions options) {
        return options.property(PROPERTY).map(TransportFaults::parse).orElse(NONE);
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
                throw new LockstepException(ErrorClass.ARG, PROPERTY + "=" + names + " names the unknown fault '" + n
                        + "' (known: " + Arrays.toString(Fault.values()) + ")");
            }
        }
        return chosen.isEmpty() ? NONE : new TransportFaults(chosen);
    }

    boolean has(Fault fault) {
        return faults.contains(fault);
    }

    /** Whether any of the message log's faults is asked for (the log is then a {@link FaultyMessageLog}). */
    boolean breaksTheLog() {
        return has(Fault.FREES_ON_RECEIPT) || has(Fault.REPLAYS_OUT_OF_ORDER) || has(Fault.FORGETS_WILDCARD_ORDER);
    }

    /** The collectives' faults, as the collectives see them. */
    CollectiveSite.Faults collectiveFaults() {
        return new CollectiveSite.Faults(faults.contains(Fault.DIRECT_FOLD_REVERSED),
                faults.contains(Fault.SHARED_BCAST_SKIPS_LAST_PIECE), faults.contains(Fault.BCAST_READS_UNPUBLISHED));
    }

    @Override
    public String toString() {
        return "TransportFaults" + faults;
    }
}
