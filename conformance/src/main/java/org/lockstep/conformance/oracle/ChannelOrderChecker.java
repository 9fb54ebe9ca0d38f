package org.lockstep.conformance.oracle;

import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.Communicator;

/**
 * Per-channel order (MPI's non-overtaking rule): if a receive posted before another could have
 * taken a message that was sent earlier on the same channel, it must not take a later one from
 * that channel while the earlier one goes to the later receive.
 */
public final class ChannelOrderChecker {
    private ChannelOrderChecker() {
    }

    /**
     * A receive and the message it got.
     *
     * @param receiver      the receiving rank
     * @param postOrder     the receive's place among that rank's receives, in posting order
     * @param specSource    the source it asked for (or {@link Communicator#ANY_SOURCE})
     * @param specTag       the tag it asked for (or {@link Communicator#ANY_TAG})
     * @param source        the message's sender
     * @param sendOrder     the message's place among that sender's messages to this receiver
     * @param tag           the message's tag
     * @param label         how to name the message in a report
     */
    public record Delivery(int receiver, int postOrder, int specSource, int specTag, int source, long sendOrder, int tag, String label) {
        boolean couldTake(Delivery other) {
            return (specSource == Communicator.ANY_SOURCE || specSource == other.source)
                    && (specTag == Communicator.ANY_TAG || specTag == other.tag);
        }
    }

    /** One line per overtaking; empty if every channel kept its order. */
    public static List<String> check(List<Delivery> deliveries) {
        List<String> problems = new ArrayList<>();
        for (Delivery early : deliveries) {
            for (Delivery late : deliveries) {
                if (early.receiver() == late.receiver() && early.postOrder() < late.postOrder() && early.source() == late.source()
                        && late.sendOrder() < early.sendOrder() && early.couldTake(late)) {
                    problems.add("rank " + early.receiver() + ": receive #" + early.postOrder() + " got " + early.label()
                            + " although " + late.label() + ", sent earlier by rank " + late.source()
                            + " and matching it, went to the later receive #" + late.postOrder());
                }
            }
        }
        return problems;
    }
}
