package org.lockstep.pcie.collective;

import static org.lockstep.pcie.layout.CollectiveAreaDescriptor.*;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.pcie.layout.CollectiveAreaDescriptor;
import org.lockstep.spi.collective.PointToPointCollectives;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.events.CollectiveRecording;

/**
 * The collectives of one mailbox communicator: the selection policy that chooses, per call, a
 * device-native algorithm where one shared device makes it cheaper than messages, and the
 * point-to-point defaults elsewhere ({@link PointToPointCollectives}). The algorithms live in one
 * class per family — {@link DeviceBarriers}, {@link DeviceBroadcasts}, {@link DeviceAllreduces},
 * {@link DeviceAlltoalls} — over the communicator's slot of the collective area
 * ({@link CollectiveArea}, {@link CollectiveAreaDescriptor}):
 *
 * <ul>
 *   <li><b>flag barrier</b> (single-writer words only, any device): each rank writes its arrival
 *       epoch to its own line and waits until every member's line shows it. One write and p − 1
 *       line reads per rank, one round.</li>
 *   <li><b>leader barrier</b> (any device; the default when ranks share cores): every rank but the
 *       leader (rank 0) writes its arrival and watches the leader's release word, which the leader
 *       writes once it has seen every arrival. The leader leaves first, so a rooted collective
 *       from rank 0 that follows has often been written before the others look for it.</li>
 *   <li><b>counter barrier</b> (devices with CAS): each rank adds one to the leader's counter with
 *       a device get-and-add; the rank that brings it to p·epoch writes the release word, which
 *       the others watch. One contended line instead of p.</li>
 *   <li><b>broadcast written once</b>: the root writes the buffer to its data area once, a chunk at
 *       a time in two halves, and every rank reads it from there.</li>
 *   <li><b>allreduce by contributions</b>: every rank writes its contribution once to its data area;
 *       every rank then combines all contributions itself, in the same order —
 *       {@code c0 op (c1 op (… op c(p−1)))} — so the result is bit-identical on every rank and
 *       a non-commutative operation sees rank order.</li>
 *   <li><b>alltoall written once</b> (small blocks): every rank writes all its blocks to its data
 *       area once; every other rank reads the one block meant for it.</li>
 *   <li><b>grid neighbour exchange written once</b> (a Cartesian communicator's blocking neighbour
 *       allgather and alltoall, all blocks within a data half): each rank writes its blocks to its
 *       data area at their steps; each neighbour reads the one meant for it.</li>
 * </ul>
 *
 * and <b>direct</b> algorithms, which read the members' own device buffers (memory their programs
 * allocated from the communicator, {@code MPI_Alloc_mem}), named in each member's exposed line:
 *
 * <ul>
 *   <li><b>direct broadcast</b> (root's buffer in device memory): every rank copies the message
 *       straight from the root's buffer; the root copies nothing and returns once all have. A
 *       large one is <b>shared</b>: rank k copies piece k into every receive buffer in device
 *       memory, so each rank copies (p − 1)/p of the message.</li>
 *   <li><b>direct allreduce</b>: a reduce-scatter and an allgather with no messages — rank r folds
 *       segment r of every member's input into its own result buffer, then every rank copies the
 *       other segments from their owners' results. One fold of each element, so bit-identical.</li>
 *   <li><b>direct alltoall</b>: every rank copies its block of every member's send buffer into its
 *       receive buffer: one copy a byte, and nobody waits for a sender to be scheduled.</li>
 * </ul>
 * A member whose buffer is process memory stages a copy (in its data area when it fits a chunk,
 * else in its heap partition); if it has no room, every member sees that and all take the
 * point-to-point algorithm.
 *
 * Every wait watches the members it waits on: one that has failed or finished before writing what
 * the wait needs fails the collective with {@code PROC_FAILED}, within the transport's failure
 * detection time, never a hang.
 *
 * <p><b>Choice.</b> Every member makes the same choice from the same arguments (rank count,
 * bytes, the device's capabilities); only the root's buffer decides between the direct and the
 * chunked broadcast, and it tells the others in its exposed line. Measured on this project's
 * 2-vCPU VM over /dev/shm ({@code lockstep bench collectives --row …}, each rank's median, the
 * maximum over ranks; 2 processes bound to cores, 4 sharing them), median µs:
 *
 * <table>
 *   <caption>Measured crossovers (2 Dec 2026)</caption>
 *   <tr><th>row</th><th>2 processes</th><th>4 processes</th></tr>
 *   <tr><td colspan="3">device-native / point-to-point (00:11–00:29 UTC)</td></tr>
 *   <tr><td>bcast 8 B</td><td>0.74 / 2.72</td><td>18 / 33</td></tr>
 *   <tr><td>bcast 64 KiB</td><td>9.1 / 37</td><td>41 / 328</td></tr>
 *   <tr><td>bcast 256 KiB</td><td>46 / 83</td><td>110 / 538</td></tr>
 *   <tr><td>bcast 1 MiB</td><td>455 / 211</td><td>3411 / 2772</td></tr>
 *   <tr><td>allreduce 8 B</td><td>1.42 / 3.33</td><td>19 / 42</td></tr>
 *   <tr><td>allreduce 4 KiB</td><td>11 / 26</td><td>44 / 194</td></tr>
 *   <tr><td>alltoall 8 B per rank</td><td>0.83 / 3.85</td><td>16 / 38 (1 KiB)</td></tr>
 *   <tr><td colspan="3">direct / device-native, device buffers (04:45–04:55 UTC, after the
 *       oversubscribed waits yield at once)</td></tr>
 *   <tr><td>bcast 1 KiB</td><td>1.03 / 0.92</td><td>5.8 / 4.7</td></tr>
 *   <tr><td>bcast 4 KiB</td><td>0.72 / 1.72</td><td>5.3 / 5.1</td></tr>
 *   <tr><td>bcast 16 KiB</td><td>1.2 / 5.1</td><td>5.7 / 6.5</td></tr>
 *   <tr><td>allreduce 1 KiB</td><td>2.1 / 1.2</td><td>12.6 / 9.2</td></tr>
 *   <tr><td>allreduce 4 KiB</td><td>3.3 / 3.5</td><td>15.7 / 17.6</td></tr>
 *   <tr><td>allreduce 16 KiB</td><td>7.5 / 12.5 (process buffers 8.8 / 12.5)</td><td>24 / 49</td></tr>
 *   <tr><td>allreduce 64 KiB</td><td>18 / 29</td><td>58 / 121</td></tr>
 *   <tr><td>alltoall 256 B per rank</td><td>0.85 / 0.78</td><td>6.2 / 5.8</td></tr>
 *   <tr><td>alltoall 1 KiB per rank</td><td>0.80 / 0.94</td><td>6.7 / 6.8</td></tr>
 *   <tr><td>alltoall 2 KiB per rank</td><td>0.82 / 1.30</td><td>6.7 / 7.0</td></tr>
 *   <tr><td colspan="3">shared / direct broadcast, device buffers (05:10 UTC)</td></tr>
 *   <tr><td>bcast 16 KiB</td><td>0.99–1.19 / 1.00–1.15</td><td>9.9–12.4 / 4.2–6.4</td></tr>
 *   <tr><td>bcast 64 KiB</td><td>1.8–2.1 / 2.6–2.7</td><td>11.5–15.2 / 8.1–10.9</td></tr>
 *   <tr><td>bcast 256 KiB</td><td>5.1–5.6 / 8.5–8.6</td><td>19–29 / 19–23</td></tr>
 *   <tr><td>bcast 1 MiB</td><td>16–17 / 50–60</td><td>75–119 / 126–161</td></tr>
 *   <tr><td colspan="3">direct (04:40 UTC) / point-to-point (2 processes: 03:50 UTC; 4 processes: 04:25 UTC),
 *       the rows</td></tr>
 *   <tr><td>bcast 1 MiB</td><td>55 / 68</td><td>150 / 267–326</td></tr>
 *   <tr><td>allreduce 1 MiB</td><td>176 / 634</td><td>593 / 1100–8000</td></tr>
 *   <tr><td>alltoall 64 KiB per rank</td><td>4.4 / 10.4</td><td>21 / 86–369</td></tr>
 * </table>
 *
 * Hence: direct broadcast from {@link #BCAST_DIRECT_MIN_BYTES} = 4 KiB when the root's buffer is a
 * device buffer, shared from {@link #BCAST_SHARED_MIN_BYTES} = 64 KiB (above 256 KiB when ranks
 * share cores), else device-native up to {@link #BCAST_NATIVE_MAX_BYTES} = 256 KiB; allreduce
 * device-native up to {@link #ALLREDUCE_NATIVE_MAX_BYTES} = 4 KiB and direct above; alltoall
 * device-native up to {@link #ALLTOALL_NATIVE_MAX_BYTES} = 1 KiB of blocks a rank and direct above.
 * The barrier always runs on the device: 0.3–0.5 µs for 2 processes against 0.5–1.9 µs for the
 * dissemination barrier over messages. With ranks sharing cores it is the leader barrier (4
 * processes on 2 cores, 05:00 UTC: barrier 5.5 / 5.1–5.3 µs leader / flags, the bcast 8 B that follows
 * it 0.28 / 5.6–8.2 µs); with a core each the flag barrier (2 processes: 0.22–0.38 against
 * 0.53–0.59 µs for the leader barrier). {@code lockstep.collectives.barrier} overrides the choice.
 */
public class DeviceCollectives extends PointToPointCollectives {
    /** Broadcasts up to this size use the device-native broadcast (above it the point-to-point fragment pipeline wins). */
    public static final long BCAST_NATIVE_MAX_BYTES = 256 << 10;
    /**
     * Allreduces up to this size use the contribution algorithm (one round), larger ones the direct
     * allreduce: the contribution algorithm folds all p contributions on every rank, the direct one
     * each element once, in two rounds (measured above).
     */
    public static final long ALLREDUCE_NATIVE_MAX_BYTES = 4 << 10;
    /**
     * Alltoalls whose blocks add up to at most this many bytes per rank use the device-native
     * exchange (each rank writes all its blocks once, every other rank reads its own); larger ones
     * the direct alltoall.
     */
    public static final long ALLTOALL_NATIVE_MAX_BYTES = 1 << 10;
    /**
     * Broadcasts of at least this many bytes from a root whose buffer is a device buffer run direct:
     * every rank copies straight from the root's buffer, which the root does not copy at all.
     */
    public static final long BCAST_DIRECT_MIN_BYTES = 4 << 10;
    /**
     * Broadcasts of at least this many bytes from a device buffer share the copying among all
     * ranks when each has a core ({@code DeviceBroadcasts.shared}); with ranks sharing cores only those above
     * {@link #BCAST_NATIVE_MAX_BYTES} do, since the others would wait for every rank's turn on a core.
     */
    public static final long BCAST_SHARED_MIN_BYTES = 64 << 10;
    /** Barriers of at least this many ranks use the counter barrier (with CAS), smaller ones the flag
     * barrier. Not measured: this 2-core machine cannot run 9 ranks without oversubscription; the
     * flag barrier reads p − 1 lines per rank, the counter barrier one contended line.
     */
    public static final int COUNTER_BARRIER_MIN_RANKS = 9;

    /** Which barrier runs. */
    public enum BarrierAlgorithm { FLAGS, LEADER, COUNTER, DISSEMINATION }

    private final CollectiveSite site;
    private final ExternalMemory device;
    private final boolean enabled;
    private final long chunkBytes;
    private final int size;
    private final boolean cas;
    private final BarrierAlgorithm barrier;
    /** The job's ranks share cores (every member sees the same: it comes from the device). */
    private final boolean ranksShareCores;
    private final DeviceBarriers barriers;
    /** The blocking barrier's operation, made at the first and rearmed for each after it. */
    private DeviceOperation blockingBarrier;
    private final DeviceBroadcasts broadcasts;
    private final DeviceAllreduces allreduces;
    private final DeviceAlltoalls alltoalls;
    private final CollectiveArea area;
    /** The non-blocking barrier, broadcast and allreduce run on the device too (else as point-to-point schedules). */
    private final boolean nonBlockingOnDevice;
    /** This communicator's non-blocking device collectives not yet done, oldest first. */
    private final StartedDeviceCollectives started;

    /**
     * The collectives of the communicator behind {@code site}; with {@code useDevice} false (or no
     * slot) only the point-to-point ones run.
     */
    public DeviceCollectives(CollectiveSite site, boolean useDevice) {
        this.site = site;
        this.device = site.device();
        this.size = site.size();
        int worldSize = site.layout().config().worldSize();
        this.enabled = useDevice && site.slot() >= 0 && site.slot() < COMMUNICATOR_SLOTS && worldSize <= MAX_WORLD_SIZE
                && size > 1;
        this.chunkBytes = CollectiveAreaDescriptor.chunkBytes(worldSize);
        long[] blocks = new long[size];
        if (enabled) {
            for (int r = 0; r < size; r++) {
                blocks[r] = site.layout().collectiveBlock(site.slot(), site.worldRank(r));
            }
        }
        this.cas = device.has(DeviceCapability.ATOMIC_CAS);
        this.ranksShareCores = site.ranksShareCores();
        this.barrier = chooseBarrier(site.requestedBarrier());
        this.area = new CollectiveArea(site, enabled ? blocks : null, CollectiveAreaDescriptor.blockLength(worldSize), chunkBytes);
        this.nonBlockingOnDevice = enabled && site.nonBlockingOnDevice();
        this.started = new StartedDeviceCollectives(area, site.deviceProgress());
        CollectiveSite.Faults faults = site.faults();
        this.barriers = enabled ? new DeviceBarriers(area) : null;
        // The kit's faulty families only when its self-test asks (CollectiveSite.Faults).
        this.broadcasts = faults.skipsLastSharedPiece() ? new FaultyCollectives.SkippedLastPiece(area)
                : faults.readsUnpublished() ? new FaultyCollectives.ReadsUnpublished(area) : new DeviceBroadcasts(area);
        this.allreduces = faults.reversesDirectFold() ? new FaultyCollectives.ReversedFold(area) : new DeviceAllreduces(area);
        this.alltoalls = new DeviceAlltoalls(area);
    }

    private BarrierAlgorithm chooseBarrier(BarrierAlgorithm requested) {
        if (!enabled) {
            return BarrierAlgorithm.DISSEMINATION;
        }
        if (requested == BarrierAlgorithm.COUNTER && !cas) {
            throw new LockstepException(ErrorClass.ARG, "the counter barrier needs a device with compare-and-swap; "
                    + device.name() + " has none (choose flags, leader or dissemination)");
        }
        if (requested != null) {
            return requested;
        }
        if (ranksShareCores) {
            return BarrierAlgorithm.LEADER;
        }
        return cas && size >= COUNTER_BARRIER_MIN_RANKS ? BarrierAlgorithm.COUNTER : BarrierAlgorithm.FLAGS;
    }

    /** Whether this communicator has a slot of the collective area and uses it. */
    public boolean usesDevice() {
        return enabled;
    }

    // ================================================================ choices

    /** Which barrier runs, chosen once per communicator. */
    public BarrierAlgorithm barrierAlgorithm() {
        return barrier;
    }

    /** Whether a broadcast of {@code bytes} bytes runs device-native. */
    public boolean bcastNative(long bytes) {
        return enabled && bytes <= BCAST_NATIVE_MAX_BYTES;
    }

    /** Whether an allreduce of {@code count} elements of {@code type} runs device-native. */
    public boolean allreduceNative(long count, Datatype type) {
        return enabled && count * type.size() <= ALLREDUCE_NATIVE_MAX_BYTES && chunkBytes >= type.size();
    }

    /**
     * Whether an allreduce of {@code count} elements of {@code type} runs direct (too large for the
     * contribution algorithm, and at least one element for every rank).
     */
    public boolean allreduceDirect(long count, Datatype type) {
        return enabled && count * type.size() > ALLREDUCE_NATIVE_MAX_BYTES && count >= size;
    }

    /** Whether an alltoall of blocks of {@code blockBytes} runs direct (too large for the data area). */
    public boolean alltoallDirect(long blockBytes) {
        return enabled && blockBytes > 0 && !alltoallNative(blockBytes);
    }

    /** Whether an alltoall of blocks of {@code blockBytes} runs device-native. */
    public boolean alltoallNative(long blockBytes) {
        return enabled && blockBytes > 0 && blockBytes * size <= Math.min(ALLTOALL_NATIVE_MAX_BYTES, chunkBytes);
    }

    // ================================================================ the calls

    @Override
    public void barrier(Communicator channel) {
        if (barrier == BarrierAlgorithm.DISSEMINATION) {
            super.barrier(channel);
            return;
        }
        recordBarrierAlgorithm();
        // one operation for every blocking barrier: none is in flight when the next begins (the started ones drain first)
        if (blockingBarrier == null) {
            blockingBarrier = newDeviceBarrier();
        } else {
            blockingBarrier.rearm();
        }
        started.drain();
        area.run(blockingBarrier);
    }

    /** Names the device barrier in the call's JFR event (the dissemination barrier names itself). */
    private void recordBarrierAlgorithm() {
        switch (barrier) {
            case FLAGS -> CollectiveRecording.algorithm("device flags barrier");
            case LEADER -> CollectiveRecording.algorithm("device leader barrier");
            case COUNTER -> CollectiveRecording.algorithm("device counter barrier");
            case DISSEMINATION -> { }
        }
    }

    /** The device barrier this communicator runs, or null for the dissemination barrier over messages. */
    private DeviceOperation newDeviceBarrier() {
        return switch (barrier) {
            case FLAGS -> barriers.flags();
            case LEADER -> barriers.leader();
            case COUNTER -> barriers.counter();
            case DISSEMINATION -> null;
        };
    }

    @Override
    public void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        started.drain();
        long n = count * type.size();
        boolean shared = enabled && n >= (ranksShareCores ? BCAST_NATIVE_MAX_BYTES + 1 : BCAST_SHARED_MIN_BYTES);
        boolean direct = !shared && enabled && n >= BCAST_DIRECT_MIN_BYTES;
        if (shared && broadcasts.shared(buffer, n, root)) {
            CollectiveRecording.algorithm("device shared bcast");
            return;
        }
        if (direct && broadcasts.direct(buffer, n, root)) {
            CollectiveRecording.algorithm("device direct bcast");
            return;
        }
        if (!bcastNative(n)) {
            super.bcast(channel, buffer, count, type, root);
            return;
        }
        CollectiveRecording.algorithm(n <= INLINE_HALF_BYTES ? "device bcast, inline" : "device chunked bcast");
        area.run(broadcasts.writtenOnce(buffer, n, root));
    }

    @Override
    public void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        started.drain();
        if (count > 0 && allreduceDirect(count, type)) {
            if (allreduces.direct(send, recv, count, type, op)) {
                CollectiveRecording.algorithm("device direct allreduce (reduce-scatter + allgather)");
            } else {
                super.allreduce(channel, send, recv, count, type, op);
            }
            return;
        }
        if (count == 0 || !allreduceNative(count, type)) {
            super.allreduce(channel, send, recv, count, type, op);
            return;
        }
        CollectiveRecording.algorithm("device contributions");
        area.run(allreduces.contributions(send, recv, count, type, op));
    }

    @Override
    public void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        started.drain();
        long block = count * type.size();
        if (alltoallDirect(block)) {
            if (alltoalls.direct(send, block, recv)) {
                CollectiveRecording.algorithm("device direct alltoall");
            } else {
                super.alltoall(channel, send, count, type, recv);
            }
            return;
        }
        if (!alltoallNative(block)) {
            super.alltoall(channel, send, count, type, recv);
            return;
        }
        CollectiveRecording.algorithm("device alltoall, written once");
        alltoalls.writtenOnce(send, block, recv);
    }

    /** A grid's blocking neighbourhood exchange runs on the device, written once, when all its blocks fit a data half. */
    @Override
    public boolean runsNeighborExchange(int blocks, long blockBytes) {
        return enabled && blockBytes > 0 && blocks > 0 && blockBytes <= chunkBytes / blocks;
    }

    @Override
    public void neighborExchange(MemorySegment[] sendBlocks, int[] destinations, int[] sendSteps, MemorySegment[] recvBlocks,
                                 int[] sources, int[] receiveSteps, long blockBytes) {
        started.drain();
        CollectiveRecording.algorithm("device neighbour exchange, written once");
        alltoalls.neighbors(sendBlocks, sendSteps, recvBlocks, sources, receiveSteps, blockBytes);
    }

    // ================================================================ non-blocking, on the device

    /**
     * The device barrier, started: it writes its arrival now if no device collective of this
     * communicator is still in flight, and completes as progress sees every member arrive.
     */
    @Override
    public Request ibarrier(Communicator channel) {
        DeviceOperation barrier = nonBlockingOnDevice ? newDeviceBarrier() : null;
        if (barrier == null) {
            return super.ibarrier(channel);
        }
        recordBarrierAlgorithm();
        return started.start(barrier);
    }

    /** The broadcast written once, started, up to {@link #BCAST_NATIVE_MAX_BYTES}; larger ones are point-to-point schedules. */
    @Override
    public Request ibcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        long n = count * type.size();
        if (!nonBlockingOnDevice || !bcastNative(n)) {
            return super.ibcast(channel, buffer, count, type, root);
        }
        CollectiveRecording.algorithm(n <= INLINE_HALF_BYTES ? "device bcast, inline" : "device chunked bcast");
        return started.start(broadcasts.writtenOnce(buffer, n, root));
    }

    /**
     * The allreduce by contributions, started, up to {@link #ALLREDUCE_NATIVE_MAX_BYTES}; larger
     * ones are point-to-point schedules (the direct allreduce has no non-blocking form yet).
     */
    @Override
    public Request iallreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        if (!nonBlockingOnDevice || count == 0 || !allreduceNative(count, type)) {
            return super.iallreduce(channel, send, recv, count, type, op);
        }
        CollectiveRecording.algorithm("device contributions");
        return started.start(allreduces.contributions(send, recv, count, type, op));
    }
}
