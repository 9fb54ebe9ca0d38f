package org.lockstep.spi.messaging;

import org.lockstep.api.Communicator;

/** This process's membership of a multi-process world, as a provider's {@code attachRank} returns it. */
public interface AttachedRank extends AutoCloseable {
    /** The world communicator of this process's rank. */
    Communicator communicator();

    /** The program threw: tell the other ranks this one has failed, then release everything. */
    void failed(Throwable cause);

    /** The program returned: tell the other ranks this one has finished, then release everything. */
    @Override
    void close();
}
