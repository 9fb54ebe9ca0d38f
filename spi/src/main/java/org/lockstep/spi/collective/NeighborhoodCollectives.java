package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.spi.events.CollectiveRecording;
import org.lockstep.spi.messaging.PackedBuffer;
import org.lockstep.spi.topology.Neighborhood;

/**
 * The neighbourhood collectives (MPI 4.1 §8.6) of a communicator with a topology, for every
 * provider: each is written as the general alltoallw form (a count, a byte displacement and a
 * datatype per block), checked, and run as one round of a {@link Schedule} on a channel of its own
 * (a duplicate made with the topology and used by nothing else): a receive from every source, then
 * a send to every destination, each tagged with the block's step ({@link Neighborhood}), so they
 * match no user message and no other collective, and the tags fit any MPI library's tag bound
 * (MPICH's is 2^28 - 1, below the collective channel's tags). Contiguous blocks travel from and land in the user's
 * buffers; others are packed into scratch and unpacked on completion. A
 * {@link Communicator#PROC_NULL} neighbour's block is neither sent nor written.
 *
 * <p>On a grid, where every rank's send steps differ, the blocking allgather and alltoall (one
 * block size for all) go to the channel's own {@link CollectiveEngine} first: a provider that
 * shares memory among the ranks may exchange the blocks natively
 * ({@link CollectiveEngine#neighborExchange}), with no message.
 */
final class NeighborhoodCollectives {
    private final Communicator channel;
    private final Neighborhood hood;
    /** The channel's collective engine on a grid (its steps name each sender's blocks), else null. */
    private final CollectiveEngine gridEngine;

    NeighborhoodCollectives(Communicator channel, Neighborhood hood, CollectiveEngine gridEngine) {
        this.channel = channel;
        this.hood = hood;
        this.gridEngine = gridEngine;
    }

    Request allgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType,
                      boolean start) {
        checkType(recvType);
        return exchange(same(hood.destinations().length, send, sendCount, sendType), "neighborAllgather",
                strided(hood.sources().length, recv, recvCount, recvType), start, true);
    }

    Request allgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                       long[] displacements, Datatype recvType, boolean start) {
        checkType(recvType);
        return exchange(same(hood.destinations().length, send, sendCount, sendType), "neighborAllgatherv",
                displaced(hood.sources().length, recv, recvCounts, displacements, recvType, "receive"), start, false);
    }

    Request alltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType,
                     boolean start) {
        checkType(sendType);
        checkType(recvType);
        return exchange(strided(hood.destinations().length, send, sendCount, sendType), "neighborAlltoall",
                strided(hood.sources().length, recv, recvCount, recvType), start, true);
    }

    Request alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType, MemorySegment recv,
                      long[] recvCounts, long[] recvDisplacements, Datatype recvType, boolean start) {
        checkType(sendType);
        checkType(recvType);
        return exchange(displaced(hood.destinations().length, send, sendCounts, sendDisplacements, sendType, "send"),
                "neighborAlltoallv", displaced(hood.sources().length, recv, recvCounts, recvDisplacements, recvType, "receive"), start,
                false);
    }

    Request alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes, MemorySegment recv,
                      long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes, boolean start) {
        return exchange(new Side(send, sendCounts, sendDisplacements, sendTypes), "neighborAlltoallw",
                new Side(recv, recvCounts, recvDisplacements, recvTypes), start, false);
    }

    /** One side of a neighbourhood collective in the alltoallw form, before checking. */
    private record Side(MemorySegment buffer, long[] counts, long[] byteDisplacements, Datatype[] types) {
    }

    private static void checkType(Datatype type) {
        CollectiveArguments.checkType(type);
    }

    /** {@code blocks} copies of one block at the buffer's start (an allgather's send side). */
    private static Side same(int blocks, MemorySegment buffer, long count, Datatype type) {
        checkType(type);
        long[] counts = new long[blocks];
        Arrays.fill(counts, count);
        return new Side(buffer, counts, new long[blocks], filled(blocks, type));
    }

    /** Block i of {@code count} elements at {@code i * count} extents. */
    private static Side strided(int blocks, MemorySegment buffer, long count, Datatype type) {
        long[] counts = new long[blocks];
        long[] displacements = new long[blocks];
        Arrays.fill(counts, count);
        long stride = Math.multiplyExact(count, type.extent());
        for (int i = 0; i < blocks; i++) {
            displacements[i] = Math.multiplyExact(stride, i);
        }
        return new Side(buffer, counts, displacements, filled(blocks, type));
    }

    /** Block i of {@code counts[i]} elements at {@code displacements[i]} extents. */
    private static Side displaced(int blocks, MemorySegment buffer, long[] counts, long[] displacements, Datatype type, String what) {
        if (counts == null || displacements == null || counts.length != blocks || displacements.length != blocks) {
            throw new LockstepException(ErrorClass.ARG, "the " + what + " side needs " + blocks + " counts and displacements, one per "
                    + "neighbour, got " + (counts == null ? "null" : counts.length) + " and "
                    + (displacements == null ? "null" : displacements.length));
        }
        long[] bytes = new long[blocks];
        for (int i = 0; i < blocks; i++) {
            bytes[i] = Math.multiplyExact(displacements[i], type.extent());
        }
        return new Side(buffer, counts, bytes, filled(blocks, type));
    }

    private static Datatype[] filled(int blocks, Datatype type) {
        Datatype[] types = new Datatype[blocks];
        Arrays.fill(types, type);
        return types;
    }

    /** {@code uniform}: one block size on every rank (an allgather or alltoall, whose signatures match). */
    private Request exchange(Side sendSide, String call, Side recvSide, boolean start, boolean uniform) {
        if (sendSide.buffer() == Communicator.IN_PLACE || recvSide.buffer() == Communicator.IN_PLACE) {
            throw new LockstepException(ErrorClass.BUFFER, call + " has no in-place form (MPI 4.1 §8.6)");
        }
        int[] sources = hood.sources();
        int[] destinations = hood.destinations();
        TypedBlocks r = TypedBlocks.of(sources.length, recvSide.buffer(), recvSide.counts(), recvSide.byteDisplacements(),
                recvSide.types(), true, call + " receive");
        TypedBlocks s = TypedBlocks.of(destinations.length, sendSide.buffer(), sendSide.counts(), sendSide.byteDisplacements(),
                sendSide.types(), false, call + " send");
        if (!start && uniform && gridEngine != null && sources.length > 0 && r.byteCounts[0] > 0
                && gridEngine.runsNeighborExchange(sources.length, r.byteCounts[0])) {
            nativeExchange(r, s, r.byteCounts[0], call);
            return null;
        }
        CollectiveRecording.algorithm("point-to-point neighbour exchange");
        Schedule schedule = Schedule.onPrivateChannel(channel);
        MemorySegment packedIn = r.contiguous() ? null : r.packed();
        for (int i = 0; i < sources.length; i++) {
            if (sources[i] != Communicator.PROC_NULL) {
                schedule.recv(sources[i], packedIn == null ? r.userBlock(i) : Buffers.slice(packedIn, r.byteOffsets[i], r.byteCounts[i]),
                        hood.receiveSteps()[i]);
            }
        }
        MemorySegment packedOut = null;
        if (!s.contiguous()) {
            packedOut = s.packed();
            s.packInto(packedOut);
        }
        for (int j = 0; j < destinations.length; j++) {
            if (destinations[j] != Communicator.PROC_NULL) {
                schedule.send(destinations[j], packedOut == null ? s.userBlock(j) : Buffers.slice(packedOut, s.byteOffsets[j],
                        s.byteCounts[j]), hood.sendSteps()[j]);
            }
        }
        Runnable unpack = packedIn == null ? null : () -> {
            for (int i = 0; i < sources.length; i++) {
                if (sources[i] != Communicator.PROC_NULL) {
                    r.unpackBlock(packedIn, i);
                }
            }
        };
        if (start) {
            Request started = schedule.start();
            return unpack == null ? started : CompletingRequest.afterSuccess(started, unpack);
        }
        schedule.run();
        if (unpack != null) {
            unpack.run();
        }
        return null;
    }

    /**
     * The exchange by the channel's engine, blocks packed where their types are not contiguous. The
     * block size is the receive side's, alike on every rank of a correct program; a rank whose send
     * blocks differ still takes part (its blocks cut or padded with zeros), so no member waits for
     * ever, and then fails.
     */
    private void nativeExchange(TypedBlocks r, TypedBlocks s, long blockBytes, String call) {
        int[] sources = hood.sources();
        int[] destinations = hood.destinations();
        MemorySegment packedIn = r.contiguous() ? null : r.packed();
        MemorySegment[] in = new MemorySegment[sources.length];
        for (int i = 0; i < sources.length; i++) {
            if (sources[i] != Communicator.PROC_NULL) {
                in[i] = packedIn == null ? r.userBlock(i) : Buffers.slice(packedIn, r.byteOffsets[i], r.byteCounts[i]);
            }
        }
        MemorySegment packedOut = null;
        if (!s.contiguous()) {
            packedOut = s.packed();
            s.packInto(packedOut);
        }
        long sendBytes = s.byteCounts.length == 0 ? blockBytes : s.byteCounts[0];
        MemorySegment[] out = new MemorySegment[destinations.length];
        for (int j = 0; j < destinations.length; j++) {
            if (destinations[j] != Communicator.PROC_NULL) {
                MemorySegment block = packedOut == null ? s.userBlock(j) : Buffers.slice(packedOut, s.byteOffsets[j], s.byteCounts[j]);
                out[j] = sendBytes == blockBytes ? block : resized(block, blockBytes);
            }
        }
        gridEngine.neighborExchange(out, destinations, hood.sendSteps(), in, sources, hood.receiveSteps(), blockBytes);
        if (packedIn != null) {
            for (int i = 0; i < sources.length; i++) {
                if (sources[i] != Communicator.PROC_NULL) {
                    r.unpackBlock(packedIn, i);
                }
            }
        }
        if (sendBytes != blockBytes) {
            throw new LockstepException(ErrorClass.TRUNCATE, call + " sends blocks of " + sendBytes + " bytes but receives blocks of "
                    + blockBytes + " (the type signatures of every pair of neighbours must match)");
        }
    }

    /** {@code block} cut or zero-padded to {@code bytes}. */
    private static MemorySegment resized(MemorySegment block, long bytes) {
        MemorySegment copy = PackedBuffer.scratch(bytes);
        copy.fill((byte) 0);
        MemorySegment.copy(block, 0, copy, 0, Math.min(bytes, block.byteSize()));
        return copy;
    }
}
