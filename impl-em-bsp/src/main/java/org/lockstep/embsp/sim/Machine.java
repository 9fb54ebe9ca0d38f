package org.lockstep.embsp.sim;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.embsp.EmBspOptions;
import org.lockstep.embsp.io.AsyncIoDriver;
import org.lockstep.embsp.io.ContextStore;
import org.lockstep.embsp.io.DiskLayout;
import org.lockstep.embsp.io.DiskSet;
import org.lockstep.embsp.io.HeapKeepingIoDriver;
import org.lockstep.embsp.io.IoDriver;
import org.lockstep.embsp.io.SyncIoDriver;
import org.lockstep.embsp.memory.PrivateMappings;
import org.lockstep.embsp.memory.WriteWatch;

/**
 * One real processor of the simulation (seed 003 Fig. 3.2): k cores with k memory partitions of
 * μ bytes, allocated once, off-heap and block-aligned; D disks holding its v/P contexts; the
 * scheduler, the I/O accounting and the machinery that moves messages between contexts. When every
 * context fits and {@code lockstep.embsp.keepResident} asks for it, each context has μ bytes of its
 * own instead and never swaps; the partitions then only bound how many VPs run at once.
 */
public final class Machine implements AutoCloseable {
    private final EmBspOptions options;
    private final ContextStore store;
    private final Scheduler scheduler;
    private final ThreadDriver threads;
    private final Accounting accounting;
    private final Arena arena = Arena.ofShared();
    private final Partition[] partitions;
    private final Vp[] vps;
    private final int firstVp;
    private final Partition agentPartition;
    private ContextStore indirectArea;
    private final DataMover mover;
    private final BlockPool blockPool;
    private final WriteWatch writes;
    /** Lazy swap-in's file mappings, or null. */
    private final PrivateMappings mappings;
    private static final long PAGE = 4096;

    private Machine(EmBspOptions options, ContextStore store) {
        this.options = options;
        this.store = store;
        this.threads = ThreadDriver.of(options.threads());
        this.accounting = new Accounting(options.processor(), options.localVps());
        this.scheduler = new Scheduler(options.cores(), threads.exclusive());
        long alignment = Math.max(options.blockSize(), store.memoryAlignment());
        this.partitions = new Partition[options.cores()];
        this.mappings = lazySwapIn(options, store) ? PrivateMappings.over(store.disks().files()) : null;
        boolean lazy = mappings != null && mappings.available();
        long slot = slotSize(options);
        for (int p = 0; p < partitions.length; p++) {
            // kept resident, every context has memory of its own: the partitions need none
            MemorySegment memory = store.mapped() || options.keepResident() ? null
                    : lazy ? mappings.allocate(options.contextSize(), alignment, arena) : arena.allocate(options.contextSize(), alignment);
            MemorySegment staging = store.mapped() ? null : arena.allocate(options.staging(), alignment);
            partitions[p] = new Partition(p, memory, staging, slot);
        }
        List<MemorySegment> memories = new ArrayList<>();
        for (Partition p : partitions) {
            if (p.memory() != null) {
                memories.add(p.memory());
            }
        }
        this.writes = memories.isEmpty() || !options.writeWatch() ? WriteWatch.none() : WriteWatch.over(memories);
        this.firstVp = options.firstVp();
        this.vps = new Vp[options.localVps()];
        AccessHistory history = new AccessHistory();
        for (int t = 0; t < vps.length; t++) {
            int id = firstVp + t;
            Partition partition = partitions[t % partitions.length];
            MemorySegment memory = store.mapped() ? store.mappedContext(id)
                    : options.keepResident() ? arena.allocate(options.contextSize(), alignment) : partition.memory();
            Context context = new Context(id, memory, store, writes, lazy ? mappings : null, history, options.keepResident(),
                    options.faults().contains(EmBspOptions.SelfTestFault.SWAPS_TWICE));
            vps[t] = new Vp(id, partition, context, scheduler.newCondition(), accounting);
        }
        scheduler.register(vps);
        MemorySegment agentStaging = store.mapped() ? null : arena.allocate(options.staging(), alignment);
        this.agentPartition = new Partition(-1, null, agentStaging, slot);
        this.mover = new DataMover(store);
        this.blockPool = new BlockPool(arena, options.blockSize(), options.boundaryCache());
    }

    /**
     * Whether swap-ins map contexts from their files (lazy swap-in): asked for, with explicit O_DIRECT
     * I/O on a contiguous layout in whole pages, and no write watch (the kernel's own tracking then).
     */
    private static boolean lazySwapIn(EmBspOptions options, ContextStore store) {
        return options.lazySwapIn() && !options.writeWatch() && !store.mapped() && !options.keepResident() && store.direct()
                && !store.layout().striped() && options.blockSize() % PAGE == 0
                && !options.faults().contains(EmBspOptions.SelfTestFault.KEEPS_CONTEXTS_IN_MEMORY);
    }

    /** Staging slots: one for synchronous use and up to α for writes in flight, each a multiple of B. */
    static long slotSize(EmBspOptions options) {
        long perSlot = options.staging() / (options.alpha() + 1L);
        long rounded = perSlot / options.blockSize() * options.blockSize();
        return Math.max(options.blockSize(), rounded);
    }

    /** Creates the disks and the partitions for {@code options}. */
    public static Machine open(EmBspOptions options) {
        DiskLayout layout = new DiskLayout(options.localVps(), options.diskCount(), options.contextSize(), options.blockSize(),
                options.striped());
        DiskSet.Access access = switch (options.io()) {
            case MMAP -> DiskSet.Access.MAPPED;
            case SYNC, ASYNC -> switch (options.direct()) {
                case TRUE -> DiskSet.Access.DIRECT;
                case FALSE -> DiskSet.Access.BUFFERED;
                case AUTO -> DiskSet.Access.AUTO_DIRECT;
            };
        };
        DiskSet disks = DiskSet.open(options.disks(), layout, options.blockSize(), access, options.keepDisks());
        IoDriver driver = switch (options.io()) {
            case SYNC -> new SyncIoDriver();
            case ASYNC -> new AsyncIoDriver(options.ioThreads());
            case MMAP -> null;
        };
        if (driver != null && options.faults().contains(EmBspOptions.SelfTestFault.KEEPS_CONTEXTS_IN_MEMORY)) {
            driver = new HeapKeepingIoDriver(driver); // kit self-test fault, never in a real job
        }
        ContextStore store = new ContextStore(disks, layout, driver, options.blockSize(), options.contextSize(), options.firstVp());
        ContextStore indirect = null;
        try {
            if (options.delivery() == EmBspOptions.Delivery.INDIRECT) {
                indirect = openIndirectArea(options, access);
            }
            Machine machine = new Machine(options, store);
            machine.indirectArea = indirect;
            return machine;
        } catch (RuntimeException | OutOfMemoryError e) {
            store.close();
            if (indirect != null) {
                indirect.close();
            }
            throw e;
        }
    }

    /**
     * PEMS1's indirect area (seed 003 §2.2, the baseline of {@code lockstep.embsp.delivery=indirect}):
     * on the same disks, beside the contexts, one region per VP of this processor, cut into one
     * fixed slot per sender ({@link EmBspOptions#indirectSlot()}).
     */
    private static ContextStore openIndirectArea(EmBspOptions options, DiskSet.Access access) {
        long region = Math.multiplyExact((long) options.vps(), options.indirectSlot());
        DiskLayout layout = new DiskLayout(options.localVps(), options.diskCount(), region, options.blockSize(), options.striped());
        List<Path> paths = new ArrayList<>();
        for (Path p : options.disks()) {
            paths.add(Files.isDirectory(p) ? p : p.resolveSibling(p.getFileName() + ".indirect"));
        }
        DiskSet disks = DiskSet.open(paths, layout, options.blockSize(), access, options.keepDisks());
        IoDriver driver = options.io() == EmBspOptions.IoMode.ASYNC ? new AsyncIoDriver(options.ioThreads()) : new SyncIoDriver();
        return new ContextStore(disks, layout, driver, options.blockSize(), region, options.firstVp());
    }

    /** PEMS1's indirect area, with {@code lockstep.embsp.delivery=indirect}; else null. */
    public ContextStore indirectArea() {
        return indirectArea;
    }

    public EmBspOptions options() {
        return options;
    }

    public ContextStore store() {
        return store;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    public ThreadDriver threads() {
        return threads;
    }

    public Accounting accounting() {
        return accounting;
    }

    /** VP {@code id}, which this processor simulates. */
    public Vp vp(int id) {
        return vps[id - firstVp];
    }

    /** Whether this processor simulates VP {@code id}. */
    public boolean simulates(int id) {
        return id >= firstVp && id < firstVp + vps.length;
    }

    /** The VPs this processor simulates (v/P of them). */
    public int vpCount() {
        return vps.length;
    }

    /** The id of this processor's first VP. */
    public int firstVp() {
        return firstVp;
    }

    public DataMover mover() {
        return mover;
    }

    /** A boundary-block cache for one collective call, drawing on the machine's budget. */
    public BoundaryCache newBoundaryCache() {
        return new BoundaryCache(blockPool, options.blockSize());
    }

    public BlockPool blockPool() {
        return blockPool;
    }

    /** Bytes of memory the simulator holds for partitions and staging. */
    public long partitionBytes() {
        if (store.mapped()) {
            return 0;
        }
        long contexts = options.keepResident() ? vps.length : partitions.length;
        return contexts * options.contextSize() + partitions.length * options.staging();
    }

    /** The staging of the network agent, which delivers what other real processors send (no memory of its own). */
    public Partition agentPartition() {
        return agentPartition;
    }

    /** The watch that tells a swap-out which pages were written. */
    public WriteWatch writes() {
        return writes;
    }

    @Override
    public void close() {
        try {
            writes.close();
            if (mappings != null) {
                mappings.close();
            }
            store.close();
            if (indirectArea != null) {
                indirectArea.close();
            }
        } finally {
            arena.close();
        }
    }
}
