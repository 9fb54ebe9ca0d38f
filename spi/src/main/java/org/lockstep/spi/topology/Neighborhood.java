package org.lockstep.spi.topology;

/**
 * Whom a rank's neighbourhood collectives receive from and send to, in block order, and the step
 * (the collective tag's low part) of each message: block i of the receive buffer comes from
 * {@code sources[i]} as step {@code receiveSteps[i]}; block j of the send buffer goes to
 * {@code destinations[j]} as step {@code sendSteps[j]}. A neighbour may be
 * {@link org.lockstep.api.Communicator#PROC_NULL}: its block is neither sent nor written.
 */
public record Neighborhood(int[] sources, int[] receiveSteps, int[] destinations, int[] sendSteps) {
    /** Every message as step 0: repeated edges between two ranks then pair up in the order they are listed (a graph's rule). */
    public static Neighborhood inListOrder(int[] sources, int[] destinations) {
        return new Neighborhood(sources, new int[sources.length], destinations, new int[destinations.length]);
    }
}
