package org.lockstep.conformance.run;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;
import org.lockstep.conformance.RuleSkipped;

/**
 * The kit inside one process of a launched job ({@code mpirun -np P}): this process is one rank of
 * the job's world, every process runs the same rule checks in the same order, and each world a
 * rule asks for is the job's first {@code n} ranks ({@link #members}). Given to the kit as the
 * target's provider, so that {@link WorldRunner} runs this process's rank of each world and agrees
 * with the other processes on how the world ended ({@link #allGather}). Job properties of a
 * rule's world are not applied: the job's were fixed when it started.
 */
public final class LaunchedWorld implements LockstepProvider {
    private final LockstepProvider provider;
    private final Communicator world;
    /** The kit's own agreements, on a context of their own. */
    private final Communicator kit;
    /** Where the job's processes raise signals without the provider: one subdirectory per world. */
    private final Path signals;
    private int worlds;

    /**
     * {@code world} is this process's world of {@code provider}; {@code signals} a directory all
     * the job's processes see. Collective (duplicates the world).
     */
    public LaunchedWorld(LockstepProvider provider, Communicator world, Path signals) {
        this.provider = provider;
        this.world = world;
        this.signals = signals;
        this.kit = world.dup();
    }

    /** The signal files of the next world; every process counts the worlds alike. */
    SignalFiles nextSignalFiles() {
        return new SignalFiles(signals.resolve("world-" + ++worlds));
    }

    @Override
    public String name() {
        return provider.name();
    }

    @Override
    public String description() {
        return provider.description() + " (one rank per process of a launched job of " + world.size() + ")";
    }

    /** This process's rank in the job. */
    public int rank() {
        return world.rank();
    }

    /** The job's rank count: the largest world a rule can have. */
    public int size() {
        return world.size();
    }

    /**
     * A world of the job's first {@code ranks} ranks; null in the other processes. Collective over
     * the job.
     */
    Communicator members(int ranks) {
        if (ranks > world.size()) {
            // every process decides alike, so the rule is skipped everywhere
            throw new RuleSkipped("needs a world of " + ranks + " ranks; the launched job has " + world.size()
                    + " processes (more with --max-ranks)");
        }
        if (ranks < 1) {
            throw new LockstepException(ErrorClass.ARG, "a world needs at least one rank, got " + ranks);
        }
        return world.split(world.rank() < ranks ? 0 : Communicator.UNDEFINED, world.rank());
    }

    /** Runs {@code program} on this process's rank of a world of {@code options.ranks()}, if it has one. */
    @Override
    public void runInThreads(JobOptions options, RankProgram program) {
        Communicator members = members(options.ranks());
        if (members == null) {
            return;
        }
        try {
            program.run(members);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new LockstepException(ErrorClass.OTHER, "rank " + members.rank() + " failed: " + e, e);
        }
        members.close();
    }

    /** Every process's {@code mine}, by job rank. Collective over the job. */
    public byte[][] allGather(byte[] mine) {
        int size = kit.size();
        int[] lengths = new int[size];
        kit.allgather(MemorySegment.ofArray(new int[] {mine.length}), 1, Datatype.INT, MemorySegment.ofArray(lengths));
        long[] counts = new long[size];
        long[] displacements = new long[size];
        long total = 0;
        for (int r = 0; r < size; r++) {
            counts[r] = lengths[r];
            displacements[r] = total;
            total += lengths[r];
        }
        byte[] all = new byte[(int) total];
        kit.allgatherv(MemorySegment.ofArray(mine), mine.length, Datatype.BYTE, MemorySegment.ofArray(all), counts, displacements);
        byte[][] each = new byte[size][];
        for (int r = 0; r < size; r++) {
            each[r] = MemorySegment.ofArray(all).asSlice(displacements[r], counts[r]).toArray(ValueLayout.JAVA_BYTE);
        }
        return each;
    }

    /** Frees the kit's communicator; collective, once every rule has run. */
    public void close() {
        kit.close();
    }
}
