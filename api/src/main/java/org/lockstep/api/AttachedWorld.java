package org.lockstep.api;

/**
 * A rank that the calling thread joined to a world by itself ({@link Lockstep#attach}), for
 * programs whose entry point is their own {@code main} rather than a {@link RankProgram}: the MPI
 * bindings' {@code MPI.Init} ... {@code MPI.Finalize}. The thread uses {@link #world()}, then
 * leaves once: {@link #close()} when the program finished, {@link #fail(Throwable)} when it failed
 * (the other ranks then see a failed process).
 */
public interface AttachedWorld extends AutoCloseable {
    /** The world communicator of this rank. */
    Communicator world();

    /** Leaves the world as a failed rank. */
    void fail(Throwable cause);

    /** Leaves the world as a rank that finished. */
    @Override
    void close();
}
