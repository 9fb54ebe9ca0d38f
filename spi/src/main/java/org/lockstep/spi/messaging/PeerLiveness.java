package org.lockstep.spi.messaging;

/**
 * What a wait that polls asks of its communicator about the ranks whose messages it needs: one
 * that has failed or finished will send nothing more, so the wait must fail rather than poll for
 * ever. A blocking probe or receive judges this by itself; a poll by non-blocking probes does not.
 */
public interface PeerLiveness {
    /**
     * Throws a {@link org.lockstep.api.ProcessFailedException} if rank {@code rank} of the
     * communicator is known to have failed or finished. Judge it before the poll, so that a
     * message the peer sent before it ended is still taken.
     */
    void failIfGone(int rank);
}
