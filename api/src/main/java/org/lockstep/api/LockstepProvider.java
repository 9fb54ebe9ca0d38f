package org.lockstep.api;

import java.nio.file.Path;
import java.util.Set;

/**
 * The one service interface through which {@link Lockstep} finds providers. A provider module
 * declares {@code provides org.lockstep.api.LockstepProvider with ...} and lists the same class in
 * {@code META-INF/services/org.lockstep.api.LockstepProvider}. Everything else a provider builds
 * on lives in the SPI module ({@code org.lockstep.spi}).
 */
public interface LockstepProvider {
    /** Short name by which users choose this provider, e.g. {@code mailbox}. */
    String name();

    /** One line that says what this provider is. */
    String description();

    /**
     * Runs {@code program} on {@code options.ranks()} ranks, each a thread of this JVM, and returns
     * when every rank has returned. If a rank throws, the others see it as a failed process on the
     * operations that involve it, and this method throws a {@link LockstepException} whose cause is
     * the first failure (the others are suppressed).
     */
    void runInThreads(JobOptions options, RankProgram program);

    /**
     * Joins this process, as one rank, to a world of separate processes set up by a launcher
     * ({@link LaunchEnvironment}: rank, size, device and job key), runs {@code program} on its world
     * communicator, and leaves the world: finished if the program returned, failed if it threw (the
     * others then see this rank as a failed process). Rethrows the program's failure.
     *
     * @throws LockstepException {@link ErrorClass#UNSUPPORTED_OPERATION} if the provider has no multi-process mode
     */
    default void runAttached(JobOptions options, LaunchEnvironment launch, RankProgram program) {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, "provider " + name() + " cannot run separate processes");
    }

    /**
     * Joins this process, as one rank, to a launcher's world as {@link #runAttached} does, but
     * returns the rank to the calling thread instead of running a program: for programs whose entry
     * point is their own {@code main} (the MPI bindings' {@code MPI.Init}). The default runs
     * {@link #runAttached} on a keeper thread; a provider whose communicators may be used from
     * the calling thread without one overrides it.
     *
     * @throws LockstepException {@link ErrorClass#UNSUPPORTED_OPERATION} if the provider has no multi-process mode
     */
    default AttachedWorld attachWorld(JobOptions options, LaunchEnvironment launch) {
        return KeptRank.start("lockstep-attached-rank-" + launch.rank(), program -> runAttached(options, launch, program));
    }

    /**
     * The job properties this provider reads: exact names, or a name ending in {@code .*} for every
     * property under it (e.g. {@code lockstep.device.option.*}). {@link Lockstep} rejects a
     * {@code lockstep.*} property that neither it nor any installed provider reads, naming the
     * nearest known one, so that a misspelt option fails instead of being ignored. The default
     * claims the provider's own family, {@code lockstep.<name>.*}.
     */
    default Set<String> propertyNames() {
        return Set.of(Lockstep.PROPERTY_PREFIX + name() + ".*");
    }

    /**
     * Checks {@code options} (ranks and properties) as this provider would read them, before any
     * rank starts: a launcher calls it so that a bad value fails once, before it forks a process
     * per rank. The default checks nothing.
     *
     * @throws LockstepException {@link ErrorClass#ARG} naming the property and why
     */
    default void checkOptions(JobOptions options) {
    }

    /**
     * Whether the device file at {@code devicePath} holds the device of job {@code jobKey} (this
     * provider formatted it for that job). A launcher that made the file for its job removes it
     * afterwards only if so (or while it is still empty): a file that another job's ranks took over
     * is never removed under them. The default, for providers that keep nothing in a device file: false.
     */
    default boolean holdsJobDevice(Path devicePath, long jobKey) {
        return false;
    }
}
