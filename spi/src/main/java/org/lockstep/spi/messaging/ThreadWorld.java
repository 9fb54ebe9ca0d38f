package org.lockstep.spi.messaging;

import org.lockstep.api.Communicator;

/**
 * A world whose ranks are threads of this JVM, as a provider sets it up for
 * {@link AbstractMessagingProvider#runInThreads}.
 */
public interface ThreadWorld extends AutoCloseable {
    /** The world communicator of {@code rank}, called on that rank's thread before its program starts. */
    Communicator communicator(int rank);

    /** The rank's program has returned normally. */
    void rankFinished(int rank);

    /** The rank's program threw: from now on it is a failed process to the others. */
    void rankFailed(int rank, Throwable cause);

    /** Releases the world (its device) after every rank has ended. */
    @Override
    void close();
}
