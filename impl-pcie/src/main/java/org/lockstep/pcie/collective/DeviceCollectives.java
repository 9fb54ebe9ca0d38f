package org.lockstep.pcie.collective;

import static org.lockstep.pcie.layout.CollectiveAreaDescriptor.*;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.pcie.layout.CollectiveAreaDescriptor;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.collective.PointToPointCollectives;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * The collectives of one mailbox communicator, with device-native algorithms where one shared
 * device makes them cheaper than messages, and the point-to-point defaults elsewhere
 * ({@link PointToPointCollectives}). The device-native ones meet in the communicator's slot of the
 * collective area ({@link CollectiveAreaDescriptor}):
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
     * ranks when each has a core ({@link #bcastShared}); with ranks sharing cores only those above
     * {@link #BCAST_NATIVE_MAX_BYTES} do, since the others would wait for every rank's turn on a core.
     */
    public static final long BCAST_SHARED_MIN_BYTES = 64 << 10;
    /** Barriers of at least this many ranks use the counter barrier (with CAS), smaller ones the flag
     * barrier. Not measured: this 2-core machine cannot run 9 ranks without oversubscription; the
     * flag barrier reads p − 1 lines per rank, the counter barrier one contended line.
     */
    public static final int COUNTER_BARRIER_MIN_RANKS = 9;
    /** Idle rounds between two calls of the transport's progress in a device-native wait. */
    private static final int PROGRESS_INTERVAL = 32;

    /** Which barrier runs. */
    public enum BarrierAlgorithm { FLAGS, LEADER, COUNTER, DISSEMINATION }

    private final CollectiveSite site;
    private final ExternalMemory device;
    private final boolean enabled;
    private final long chunkBytes;
    private final int size;
    private final int rank;
    /** Block of each member in this communicator's slot. */
    private final long[] blocks;
    private final long leaderBlock;
    private final boolean cas;
    private final BarrierAlgorithm barrier;
    /** The job's ranks share cores (every member sees the same: it comes from the device). */
    private final boolean ranksShareCores;
    private final CollectiveSite.Faults faults;
    private long barrierEpoch;
    private long counterBarriers;
    private long chunkSequence;
    private MemorySegment scratch;

    /**
     * The collectives of the communicator behind {@code site}; with {@code useDevice} false (or no
     * slot) only the point-to-point ones run.
     */
    public DeviceCollectives(CollectiveSite site, boolean useDevice) {
        this.site = site;
        this.device = site.device();
        this.size = site.size();
        this.rank = site.rank();
        int worldSize = site.layout().config().worldSize();
        this.enabled = useDevice && site.slot() >= 0 && site.slot() < COMMUNICATOR_SLOTS && worldSize <= MAX_WORLD_SIZE
                && size > 1;
        this.chunkBytes = CollectiveAreaDescriptor.chunkBytes(worldSize);
        this.blocks = new long[size];
        if (enabled) {
            for (int r = 0; r < size; r++) {
                blocks[r] = site.layout().collectiveBlock(site.slot(), site.worldRank(r));
            }
        }
        this.leaderBlock = enabled ? blocks[0] : -1;
        this.cas = device.has(DeviceCapability.ATOMIC_CAS);
        this.ranksShareCores = site.ranksShareCores();
        this.faults = site.faults();
        this.barrier = chooseBarrier(site.requestedBarrier());
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

    // ================================================================ barrier

    @Override
    public void barrier(Communicator channel) {
        switch (barrierAlgorithm()) {
            case FLAGS -> flagBarrier();
            case LEADER -> leaderBarrier();
            case COUNTER -> counterBarrier();
            case DISSEMINATION -> super.barrier(channel);
        }
    }

    private void flagBarrier() {
        long epoch = ++barrierEpoch;
        device.putLongRelease(blocks[rank] + ARRIVAL_OFFSET, epoch);
        for (int q = 0; q < size; q++) {
            if (q != rank) {
                awaitWord(blocks[q] + ARRIVAL_OFFSET, epoch, q, "barrier");
            }
        }
    }

    private void leaderBarrier() {
        long epoch = ++barrierEpoch;
        // the leader's arrival too: a member that sees a gone leader then knows whether it had arrived
        device.putLongRelease(blocks[rank] + ARRIVAL_OFFSET, epoch);
        if (rank == 0) {
            for (int q = 1; q < size; q++) {
                awaitWord(blocks[q] + ARRIVAL_OFFSET, epoch, q, "barrier");
            }
            device.putLongRelease(leaderBlock + RELEASE_OFFSET, epoch);
            return;
        }
        awaitRelease(epoch, epoch, true);
    }

    private void counterBarrier() {
        long epoch = ++barrierEpoch;
        long target = ++counterBarriers * size;
        // The arrival word says, if a member fails, whether it had arrived.
        device.putLongRelease(blocks[rank] + ARRIVAL_OFFSET, epoch);
        long counted = device.getAndAddLong(leaderBlock + COUNTER_OFFSET, 1) + 1;
        if (counted == target) {
            device.putLongRelease(leaderBlock + RELEASE_OFFSET, counterBarriers);
            return;
        }
        awaitRelease(counterBarriers, epoch, false);
    }

    /**
     * Waits until the leader's release word reaches {@code release}; fails if a member that has not
     * arrived at barrier {@code epoch} is gone (the release would never come), or, when
     * {@code leaderReleases}, if the leader is gone (it arrived, but will not release).
     */
    private void awaitRelease(long release, long epoch, boolean leaderReleases) {
        IdleStrategy idle = site.newIdleStrategy();
        int rounds = 0;
        while (device.getLongAcquire(leaderBlock + RELEASE_OFFSET) < release) {
            if (++rounds % PROGRESS_INTERVAL == 0) {
                site.progress();
                for (int q = 0; q < size; q++) {
                    if (q != rank && site.isGone(q) && device.getLongAcquire(blocks[q] + ARRIVAL_OFFSET) < epoch
                            && device.getLongAcquire(leaderBlock + RELEASE_OFFSET) < release) {
                        throw site.failure(q, "barrier");
                    }
                }
                if (leaderReleases && site.isGone(0) && device.getLongAcquire(leaderBlock + RELEASE_OFFSET) < release) {
                    throw site.failure(0, "barrier");
                }
            }
            idle.idle();
        }
    }

    // ================================================================ bcast

    @Override
    public void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        long n = count * type.size();
        boolean shared = enabled && n >= (ranksShareCores ? BCAST_NATIVE_MAX_BYTES + 1 : BCAST_SHARED_MIN_BYTES);
        boolean direct = !shared && enabled && n >= BCAST_DIRECT_MIN_BYTES;
        if (shared && bcastShared(buffer, n, root) || direct && bcastDirect(buffer, n, root)) {
            return;
        }
        if (!bcastNative(n)) {
            super.bcast(channel, buffer, count, type, root);
            return;
        }
        for (long offset = 0; offset < n; offset += chunkBytes) {
            long chunk = ++chunkSequence;
            long length = Math.min(chunkBytes, n - offset);
            long half = blocks[root] + halfOffset(chunk, n);
            if (rank == root) {
                awaitAllConsumed(chunk - 2, "bcast");
                device.write(half, buffer, offset, length);
                device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, chunk);
            } else {
                awaitWord(blocks[root] + PUBLISHED_OFFSET, chunk, root, "bcast");
                device.read(half, buffer, offset, length);
            }
            device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, chunk);
        }
    }

    /**
     * The direct broadcast, if the root's buffer is a device buffer: the root exposes it with its
     * next chunk, every other rank copies it from there and consumes the chunk, and the root returns
     * once all have. The root alone knows where its buffer lives, so the others learn from the
     * exposed line whether that chunk is direct or the first of the chunked broadcast; false (and
     * nothing consumed) when it is chunked.
     */
    private boolean bcastDirect(MemorySegment buffer, long n, int root) {
        long chunk = chunkSequence + 1;
        if (rank == root) {
            long offset = site.deviceOffset(buffer, n);
            if (offset < 0) {
                return false;
            }
            chunkSequence = chunk;
            awaitAllConsumed(chunk - 1, "bcast"); // nobody still reads the exposed line
            expose(chunk, offset, -1, n);
            device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, chunk);
            device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, chunk);
            awaitAllConsumed(chunk, "bcast");
            return true;
        }
        awaitWord(blocks[root] + PUBLISHED_OFFSET, chunk, root, "bcast");
        if (device.getLong(blocks[root] + EXPOSED_OFFSET + EXPOSED_CHUNK) != chunk) {
            return false;
        }
        chunkSequence = chunk;
        try {
            device.read(exposedSource(root, n, "bcast"), buffer, 0, n);
        } finally {
            // consumed even when the sizes do not match: the root must not wait for this rank for ever
            device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, chunk);
        }
        return true;
    }

    /**
     * The direct broadcast of a large message with the copying shared out: every rank exposes its
     * buffer (the root as source, the others as results, -1 if process memory); rank k copies piece
     * k of the root's buffer into every result that is exposed, and a rank whose buffer is process
     * memory copies the whole message itself. With p ranks each copies (p − 1)/p of the message
     * instead of the receivers copying all of it while the root waits. All return once all are done.
     * False when the root's buffer is not a device buffer (every member sees it).
     */
    private boolean bcastShared(MemorySegment buffer, long n, int root) {
        long chunk = ++chunkSequence;
        awaitAllConsumed(chunk - 1, "bcast");
        long own = site.deviceOffset(buffer, n);
        expose(chunk, rank == root ? own : -1, rank == root ? -1 : own, n);
        device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, chunk);
        boolean direct = false;
        try {
            long source = -1;
            long[] results = new long[size];
            awaitAllPublished(chunk, "bcast");
            for (int q = 0; q < size; q++) {
                if (q == root) {
                    source = exposedSource(q, n, "bcast");
                } else {
                    results[q] = exposedResult(q, n, "bcast");
                }
            }
            if (source >= 0) {
                direct = true;
                long from = pieceStart(rank, n);
                long length = pieceStart(rank + 1, n) - from;
                if (faults.skipsLastSharedPiece() && rank == size - 1) { // kit self-test fault hook, off by default
                    length = 0;
                }
                MemorySegment whole = device.asSegment();
                for (int k = 1; k <= size; k++) {
                    int q = (rank + k) % size; // this rank's own result last: the others wait for theirs
                    if (q != root && results[q] >= 0 && length > 0) {
                        device.read(source + from, whole, results[q] + from, length);
                    }
                }
                if (rank != root && results[rank] < 0) {
                    device.read(source, buffer, 0, n);
                }
            }
        } finally {
            // also when the sizes differ (every rank that sees it fails): nobody waits for this rank for ever
            device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, chunk);
        }
        if (direct) {
            awaitAllConsumed(chunk, "bcast"); // every piece is in place, and nobody reads the root's buffer any more
        }
        return direct;
    }

    /** Where piece {@code piece} of an {@code n}-byte message starts: pieces end on cache lines, so no two copiers share one. */
    private long pieceStart(int piece, long n) {
        return piece >= size ? n : Math.min(n, n / size * piece & -LayoutConstants.CACHE_LINE);
    }

    // ================================================================ allreduce

    @Override
    public void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        if (count > 0 && allreduceDirect(count, type)) {
            if (!allreduceDirect(channel, send, recv, count, type, op)) {
                super.allreduce(channel, send, recv, count, type, op);
            }
            return;
        }
        if (count == 0 || !allreduceNative(count, type)) {
            super.allreduce(channel, send, recv, count, type, op);
            return;
        }
        long elementSize = type.size();
        long chunkElements = chunkBytes / elementSize;
        MemorySegment input = send == Communicator.IN_PLACE ? recv : send;
        long scratchHalf = Math.min(chunkBytes, count * elementSize);
        // Both operands of the fold in process memory: the operation's accesses then meet one kind of segment.
        MemorySegment scratchBoth = scratch(2 * scratchHalf);
        MemorySegment contribution = scratchBoth.asSlice(0, scratchHalf);
        MemorySegment folded = scratchBoth.asSlice(scratchHalf, scratchHalf);
        for (long first = 0; first < count; first += chunkElements) {
            long chunk = ++chunkSequence;
            long elements = Math.min(chunkElements, count - first);
            long offset = first * elementSize;
            long length = elements * elementSize;
            long halfOffset = halfOffset(chunk, count * elementSize);
            awaitAllConsumed(chunk - 2, "allreduce");
            device.write(blocks[rank] + halfOffset, input, offset, length);
            device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, chunk);
            awaitAllPublished(chunk, "allreduce");
            // The same fold on every rank, from the highest rank down: c0 op (c1 op (… op c(p−1))).
            MemorySegment result = folded.asSlice(0, length);
            device.read(blocks[size - 1] + halfOffset, result, 0, length);
            MemorySegment operand = contribution.asSlice(0, length);
            for (int q = size - 2; q >= 0; q--) {
                device.read(blocks[q] + halfOffset, operand, 0, length);
                op.apply(operand, result, elements, type);
            }
            device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, chunk);
            MemorySegment.copy(result, 0, recv, offset, length);
        }
    }

    /**
     * The direct allreduce — a reduce-scatter and an allgather that read the members' own device
     * buffers. Every rank exposes its input and its result buffer (a staged copy where one is not a
     * device buffer); rank r folds segment r of every input, {@code c0 op (c1 op (… op c(p−1)))},
     * into segment r of its result and publishes; then every rank copies the other segments from
     * their owners' results. Each segment is folded once, so every rank gets the same bits. False
     * (after every member has seen it) when some member had no room to stage: all then take the
     * point-to-point algorithm.
     *
     * <p>Why in place is safe: rank q reads segment q of rank r's input, which is segment q of r's
     * result when in place; r overwrites it only after q has published its folded segment q.
     */
    private boolean allreduceDirect(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type,
                                    Op op) {
        long elementSize = type.size();
        long n = count * elementSize;
        MemorySegment input = send == Communicator.IN_PLACE ? recv : send;
        long exposedChunk = ++chunkSequence;
        long foldedChunk = ++chunkSequence;
        awaitAllConsumed(exposedChunk - 1, "allreduce");
        Staged stagedInput = null;
        Staged stagedResult = null;
        try {
            long inputOffset = site.deviceOffset(input, n);
            if (inputOffset < 0 && (stagedInput = stage(0, n)) != null) {
                device.write(stagedInput.offset(), input, 0, n);
                inputOffset = stagedInput.offset();
            }
            long resultOffset = site.deviceOffset(recv, n);
            if (resultOffset < 0 && (stagedResult = stage(1, n)) != null) {
                resultOffset = stagedResult.offset();
            }
            boolean ready = inputOffset >= 0 && resultOffset >= 0;
            expose(exposedChunk, ready ? inputOffset : -1, ready ? resultOffset : -1, n);
            device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, exposedChunk);
            long[] inputs = new long[size];
            long[] results = new long[size];
            boolean folded = false;
            try {
                awaitAllPublished(exposedChunk, "allreduce");
                boolean allReady = true;
                for (int q = 0; q < size; q++) {
                    inputs[q] = exposedSource(q, n, "allreduce");
                    results[q] = exposedResult(q, n, "allreduce");
                    allReady &= inputs[q] >= 0 && results[q] >= 0;
                }
                if (!allReady) {
                    return false;
                }
                allreduceSegments(recv, count, type, op, inputs, results, resultOffset, stagedResult != null, foldedChunk);
                folded = true;
            } finally {
                if (!folded) {
                    // no room on some member, sizes that differ (every member then fails), or a user operation
                    // that threw: the chunk ends here, so that nobody waits for this rank for ever
                    device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, foldedChunk);
                    device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, foldedChunk);
                }
            }
            awaitAllConsumed(foldedChunk, "allreduce"); // nobody reads this rank's buffers any more
            return true;
        } finally {
            unstage(stagedInput);
            unstage(stagedResult);
        }
    }

    /** The fold of this rank's segment, then the other segments from their owners' results. */
    private void allreduceSegments(MemorySegment recv, long count, Datatype type, Op op, long[] inputs, long[] results,
                                   long resultOffset, boolean resultStaged, long foldedChunk) {
        long elementSize = type.size();
        long first = segmentStart(rank, count) * elementSize;
        long length = segmentStart(rank + 1, count) * elementSize - first;
        MemorySegment folded = scratch(length).asSlice(0, length);
        MemorySegment whole = device.asSegment();
        boolean reversed = faults.reversesDirectFold(); // kit self-test fault hook, off by default
        device.read(inputs[reversed ? 0 : size - 1] + first, folded, 0, length);
        for (int k = size - 2; k >= 0; k--) {
            int q = reversed ? size - 1 - k : k;
            op.apply(whole.asSlice(inputs[q] + first, length), folded, length / elementSize, type);
        }
        device.write(resultOffset + first, folded, 0, length);
        device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, foldedChunk);
        if (resultStaged) {
            MemorySegment.copy(folded, 0, recv, first, length);
        }
        for (int k = 1; k < size; k++) {
            int q = (rank + k) % size;
            long from = segmentStart(q, count) * elementSize;
            long bytes = segmentStart(q + 1, count) * elementSize - from;
            awaitWord(blocks[q] + PUBLISHED_OFFSET, foldedChunk, q, "allreduce");
            device.read(results[q] + from, recv, from, bytes);
        }
        device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, foldedChunk);
    }

    /** First element of segment {@code segment} of {@code count} elements split over the members (the last ends at count). */
    private long segmentStart(int segment, long count) {
        return count / size * segment + Math.min(segment, count % size);
    }

    // ================================================================ alltoall

    @Override
    public void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        long block = count * type.size();
        if (alltoallDirect(block)) {
            if (!alltoallDirect(send, block, recv)) {
                super.alltoall(channel, send, count, type, recv);
            }
            return;
        }
        if (!alltoallNative(block)) {
            super.alltoall(channel, send, count, type, recv);
            return;
        }
        MemorySegment input = send == Communicator.IN_PLACE ? recv : send;
        long chunk = ++chunkSequence;
        long halfOffset = halfOffset(chunk, block * size);
        awaitAllConsumed(chunk - 2, "alltoall");
        // All blocks go to the device before any is read back, so an in-place call overwrites nothing it still sends.
        device.write(blocks[rank] + halfOffset, input, 0, block * size);
        device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, chunk);
        if (input != recv) {
            MemorySegment.copy(input, rank * block, recv, rank * block, block);
        }
        for (int k = 1; k < size; k++) {
            int q = (rank + k) % size;
            awaitWord(blocks[q] + PUBLISHED_OFFSET, chunk, q, "alltoall");
            device.read(blocks[q] + halfOffset + rank * block, recv, q * block, block);
        }
        device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, chunk);
    }

    /**
     * The direct alltoall: every rank exposes its send buffer (a staged copy if it is not a device
     * buffer, or if in place: the blocks it sends are the ones it receives into), then copies its
     * block of every member's buffer straight into its receive buffer. One copy a byte when the
     * send buffers are device buffers, and no member waits for another to be scheduled to send.
     * False (after every member has seen it, before anything is written) when some member had no
     * room to stage.
     */
    private boolean alltoallDirect(MemorySegment send, long block, MemorySegment recv) {
        long n = block * size;
        boolean inPlace = send == Communicator.IN_PLACE;
        MemorySegment input = inPlace ? recv : send;
        long chunk = ++chunkSequence;
        awaitAllConsumed(chunk - 1, "alltoall");
        Staged staged = null;
        try {
            long offset = inPlace ? -1 : site.deviceOffset(input, n);
            if (offset < 0 && (staged = stage(0, n)) != null) {
                device.write(staged.offset(), input, 0, n);
                offset = staged.offset();
            }
            expose(chunk, offset, -1, n);
            device.putLongRelease(blocks[rank] + PUBLISHED_OFFSET, chunk);
            long[] sources = new long[size];
            boolean allReady = true;
            try {
                awaitAllPublished(chunk, "alltoall");
                for (int q = 0; q < size; q++) {
                    sources[q] = exposedSource(q, n, "alltoall");
                    allReady &= sources[q] >= 0;
                }
                if (allReady) {
                    for (int k = 0; k < size; k++) {
                        int q = (rank + k) % size;
                        device.read(sources[q] + rank * block, recv, q * block, block);
                    }
                }
            } finally {
                // also when the sizes differ (every member then fails): nobody waits for this rank for ever
                device.putLongRelease(blocks[rank] + CONSUMED_OFFSET, chunk);
            }
            awaitAllConsumed(chunk, "alltoall"); // nobody reads this rank's buffer any more
            return allReady;
        } finally {
            unstage(staged);
        }
    }

    /** Device memory that stands in for a buffer in process memory; {@code buffer} non-null if allocated for it. */
    private record Staged(long offset, MemorySegment buffer) {
    }

    /**
     * Room in the device for {@code n} bytes of this rank: half {@code half} of its data area if
     * they fit (a direct collective starts once every member has consumed every earlier chunk, so
     * both halves are free until it ends), else a buffer from its heap partition; null if neither.
     */
    private Staged stage(int half, long n) {
        if (n <= chunkBytes) {
            return new Staged(blocks[rank] + DATA_OFFSET + half * chunkBytes, null);
        }
        MemorySegment buffer = site.allocateStaging(n);
        return buffer == null ? null : new Staged(site.deviceOffset(buffer, n), buffer);
    }

    private void unstage(Staged staged) {
        if (staged != null && staged.buffer() != null) {
            site.freeStaging(staged.buffer());
        }
    }

    // ================================================================ exposed buffers

    /** Writes this rank's exposed line for {@code chunk}; the release store of the published chunk that follows makes it visible. */
    private void expose(long chunk, long source, long result, long length) {
        long line = blocks[rank] + EXPOSED_OFFSET;
        device.putLong(line + EXPOSED_SOURCE, source);
        device.putLong(line + EXPOSED_RESULT, result);
        device.putLong(line + EXPOSED_LENGTH, length);
        device.putLong(line + EXPOSED_CHUNK, chunk);
    }

    /** The source buffer member {@code q} exposed (its chunk already awaited), or -1 if it has none. */
    private long exposedSource(int q, long length, String collective) {
        return exposed(q, EXPOSED_SOURCE, length, collective);
    }

    /** The result buffer member {@code q} exposed (its chunk already awaited), or -1 if it has none. */
    private long exposedResult(int q, long length, String collective) {
        return exposed(q, EXPOSED_RESULT, length, collective);
    }

    /**
     * An offset member {@code q} exposed, checked: the member must have exposed as many bytes as
     * this rank expects (MPI requires matching sizes), inside its own heap partition or data area —
     * a corrupt or hostile line fails the collective, it is never followed outside them.
     */
    private long exposed(int q, int field, long length, String collective) {
        long line = blocks[q] + EXPOSED_OFFSET;
        long offset = device.getLong(line + field);
        long exposedLength = device.getLong(line + EXPOSED_LENGTH);
        // the size first, also when nothing is exposed: every member must see a mismatch
        if (exposedLength != length) {
            throw new LockstepException(ErrorClass.TRUNCATE, collective + ": rank " + q + " of the communicator gives " + exposedLength
                    + " bytes where rank " + rank + " expects " + length + " (counts and datatypes must match on every rank)");
        }
        if (offset < 0) {
            return -1;
        }
        MailboxLayout layout = site.layout();
        long partition = layout.heapPartition(site.worldRank(q));
        long dataArea = blocks[q] + DATA_OFFSET;
        boolean inPartition = offset >= partition && offset - partition <= layout.heapAllocatorLength() - length;
        boolean inDataArea = offset >= dataArea && offset - dataArea <= 2 * chunkBytes - length;
        if (!inPartition && !inDataArea) {
            throw new LockstepException(ErrorClass.INTERN, collective + ": rank " + q + " exposed [" + offset + ", +" + length
                    + ") outside its heap partition [" + partition + ", +" + layout.heapAllocatorLength() + ") and its data area ["
                    + dataArea + ", +" + 2 * chunkBytes + ")");
        }
        return offset;
    }

    /**
     * Where in a block chunk {@code chunk} of a collective of {@code n} bytes lies: in the
     * published line itself when the whole collective fits an inline half (the reader then gets
     * the data with the line it watches: one line from another core instead of two), else in the
     * data area. Halves alternate with the chunk either way.
     */
    private long halfOffset(long chunk, long n) {
        return n <= INLINE_HALF_BYTES ? PUBLISHED_OFFSET + INLINE_OFFSET + (chunk & 1) * INLINE_HALF_BYTES
                : DATA_OFFSET + (chunk & 1) * chunkBytes;
    }

    // ================================================================ waiting

    /** Waits until every other member has published chunk {@code chunk} (and with it its exposed line). */
    private void awaitAllPublished(long chunk, String collective) {
        for (int k = 1; k < size; k++) {
            int q = (rank + k) % size;
            awaitWord(blocks[q] + PUBLISHED_OFFSET, chunk, q, collective);
        }
    }

    /** Waits until every member has consumed chunk {@code chunk} (a half is free once the chunk two before is). */
    private void awaitAllConsumed(long chunk, String collective) {
        if (chunk <= 0) {
            return;
        }
        for (int q = 0; q < size; q++) {
            if (q != rank) {
                awaitWord(blocks[q] + CONSUMED_OFFSET, chunk, q, collective);
            }
        }
    }

    /**
     * Waits until the word at {@code address}, written by member {@code writer} only, reaches
     * {@code value}. Fails if the writer is gone and the word has not got there (read again after
     * the writer's end was seen: what it wrote before it ended is visible then).
     */
    private void awaitWord(long address, long value, int writer, String collective) {
        if (device.getLongAcquire(address) >= value) {
            return;
        }
        IdleStrategy idle = site.newIdleStrategy();
        int rounds = 0;
        while (device.getLongAcquire(address) < value) {
            if (++rounds % PROGRESS_INTERVAL == 0) {
                site.progress();
                if (site.isGone(writer) && device.getLongAcquire(address) < value) {
                    throw site.failure(writer, collective);
                }
            }
            idle.idle();
        }
    }

    private MemorySegment scratch(long bytes) {
        if (scratch == null || scratch.byteSize() < bytes) {
            scratch = MemorySegment.ofArray(new long[(int) ((bytes + Long.BYTES - 1) / Long.BYTES)]);
        }
        return scratch;
    }
}
