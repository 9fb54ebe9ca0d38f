package org.lockstep.api;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * Independent checkpoint and restart of this rank (seed 001, docs/design.md §4): each rank checkpoints
 * itself whenever it chooses — no barrier, no quiescing of the others — and a rank that dies is
 * restarted from its own last checkpoint while the others keep running.
 *
 * <p>Reached through {@link Communicator#checkpoints()} of the world communicator. A program
 * {@linkplain #register registers} the memory that is its state, calls {@link #restore()} once at
 * start (which tells a first run from a restart and, on a restart, copies the checkpointed state
 * back), and calls {@link #checkpoint()} whenever it likes:
 *
 * <pre>{@code
 * Checkpoints checkpoints = world.checkpoints();
 * checkpoints.register("grid", grid);
 * checkpoints.register("step", step);          // e.g. a one-long segment holding the loop counter
 * checkpoints.restore();                       // epoch 0: a first run; > 0: state is as checkpointed
 * for (long i = step.get(JAVA_LONG, 0); i < steps; step.set(JAVA_LONG, 0, ++i)) {
 *     exchange(world, grid);
 *     if (i % 100 == 0) checkpoints.checkpoint();
 * }
 * }</pre>
 *
 * <p><b>What a checkpoint holds.</b> The registered segments' bytes and the transport's cursors:
 * per channel (sender, this receiver) which messages this rank has consumed, per destination how
 * many it has sent, and how far its log of wildcard ({@link Communicator#ANY_SOURCE}) matches
 * goes. It commits atomically: a crash during {@link #checkpoint()} leaves the previous checkpoint
 * intact, and one that returned {@linkplain CheckpointResult#durable() durable} survives a crash
 * of the process (and, on a persistent device, power loss).
 *
 * <p><b>What a restart sees.</b> A restarted rank's receives get, in the original per-channel
 * order, every message it had not consumed at its checkpoint; its wildcard receives match the
 * senders they originally matched; and the messages it sends again (those its previous incarnation
 * had already sent after the checkpoint) are recognised by their sequence numbers and dropped. The
 * program must therefore be deterministic apart from wildcard matching: given the same messages
 * in the same matching order it sends the same messages. Only receives are logged: what
 * {@code probe}/{@code iprobe} with {@link Communicator#ANY_SOURCE} reported, results of
 * {@code test} polling and timing are not, so a program must not let them decide what it sends
 * (receive with {@code ANY_SOURCE} instead of probing for a source and then receiving from it).
 * Traffic a restarted rank has before it calls {@link #restore()} (e.g. a {@code dup} while it sets
 * up again) is not re-execution: it is neither logged nor matched against the log, and its peers
 * must take part as at a first start.
 *
 * <p><b>When to call {@link #checkpoint()}.</b> At a quiet point of this rank: none of its own
 * non-blocking requests (point-to-point or collective) is pending — the program could not re-create
 * them after a restart. The call fails with {@link ErrorClass#PENDING} otherwise, changing nothing.
 * The other ranks need not be quiet.
 *
 * <p><b>Capability.</b> Under a provider or job without persistence, {@link #durable()} is false
 * and every call still succeeds: {@link #checkpoint()} is a no-op whose result says it is not
 * durable, {@link #restore()} returns 0 and {@link #restart()} is empty — programs written against
 * this interface run unchanged. {@link #unsupported()} is that implementation.
 *
 * <p><b>How a process learns it is a restarted incarnation.</b> The launcher starts incarnation
 * {@code k} of a rank with the environment variable {@value #INCARNATION_VARIABLE}{@code =k}
 * ({@code 1} or absent for the first; see {@link LaunchEnvironment#incarnation(java.util.Map)}), and
 * passes the job properties {@value #ENABLED_PROPERTY}{@code =true} and, when it restarts failed
 * ranks, {@value #RESTART_ON_FAILURE_PROPERTY}{@code =true}. A provider may also know from its
 * device (the mailbox transport keeps every rank's incarnation in its rank table); the program
 * asks {@link #restart()}.
 */
public interface Checkpoints {
    /** Environment variable: the incarnation of this rank's process, 1 for the first, k for the k-th start. */
    String INCARNATION_VARIABLE = "LOCKSTEP_INCARNATION";
    /** Job property: {@code true} turns the message log and checkpoints on for the whole job. */
    String ENABLED_PROPERTY = "lockstep.checkpoint";
    /** Job property: bytes each rank may checkpoint (registered state plus cursors); e.g. {@code 4m}. */
    String STATE_BYTES_PROPERTY = "lockstep.checkpoint.bytesPerRank";
    /**
     * Job property: {@code true} when the launcher restarts ranks that die. The survivors then do
     * not fail at once on a dead peer: they wait for its next incarnation, bounded by
     * {@value #RESTART_TIMEOUT_PROPERTY}, and traffic resumes.
     */
    String RESTART_ON_FAILURE_PROPERTY = "lockstep.restartOnFailure";
    /** Job property: how long survivors wait for a dead rank's next incarnation, in milliseconds (default 30000). */
    String RESTART_TIMEOUT_PROPERTY = "lockstep.restartTimeoutMillis";

    /** Whether {@link #checkpoint()} stores anything that survives this process. */
    boolean durable();

    /**
     * Registers {@code state} under {@code name} (unique per rank): its bytes are part of every
     * later checkpoint and are overwritten by {@link #restore()}. Register the same names with
     * segments of the same sizes in every incarnation.
     *
     * @throws LockstepException {@link ErrorClass#ARG} if the name is taken or blank, or
     *         {@link ErrorClass#NO_MEM} if the registered state no longer fits the checkpoint area
     */
    void register(String name, MemorySegment state);

    /**
     * Whether this process is a restarted incarnation, and from which checkpoint it resumes;
     * empty for a first run (and always under a provider without persistence).
     */
    Optional<Restart> restart();

    /**
     * On a restart from a checkpoint, copies the checkpointed bytes of every registered segment
     * back into it and returns the checkpoint's epoch; on a first run (or a restart before any
     * checkpoint) changes nothing and returns 0.
     *
     * @throws LockstepException {@link ErrorClass#ARG} if a registered segment's name or size does
     *         not match the checkpoint
     */
    long restore();

    /**
     * Checkpoints this rank now: registered state and transport cursors, committed atomically.
     * Messages this rank has consumed up to here may then be reclaimed by their senders.
     *
     * @throws LockstepException {@link ErrorClass#PENDING} if a request of this rank is pending
     */
    CheckpointResult checkpoint();

    /** The implementation for providers and jobs without persistence: every call is a declared no-op. */
    static Checkpoints unsupported() {
        return UnsupportedCheckpoints.INSTANCE;
    }

    /**
     * What {@link #checkpoint()} did.
     *
     * @param epoch      the checkpoint's number, 1 for this rank's first, increasing; 0 when not durable
     * @param durable    whether it was stored where it survives this process
     * @param stateBytes bytes of registered state it holds
     * @param totalBytes bytes written for it, cursors included
     */
    record CheckpointResult(long epoch, boolean durable, long stateBytes, long totalBytes) {
        /** The result of a checkpoint under a provider without persistence. */
        public static final CheckpointResult NOT_DURABLE = new CheckpointResult(0, false, 0, 0);
    }

    /**
     * A restarted incarnation.
     *
     * @param incarnation this process's incarnation, at least 2
     * @param epoch       the checkpoint it resumes from, or 0 if its predecessor never checkpointed
     *                    (the program then starts over and receives every message again)
     */
    record Restart(long incarnation, long epoch) {
    }
}
