package org.lockstep.embsp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Sizes;

/**
 * The parameters of one EM-BSP simulation, read from {@link JobOptions} properties and checked
 * together, so that an impossible configuration fails before any file is created.
 *
 * <table>
 *   <caption>properties (all optional except where a constraint ties them together)</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@value #VPS}</td><td>v, if given it must equal the job's rank count</td><td>ranks</td></tr>
 *   <tr><td>{@value #CORES}</td><td>k, memory partitions and VPs that run at once</td><td>min(v, CPUs)</td></tr>
 *   <tr><td>{@value #CONTEXT_SIZE}</td><td>μ, bytes of one VP's context, a multiple of B</td><td>1m</td></tr>
 *   <tr><td>{@value #BLOCK_SIZE}</td><td>B, the disk block, a multiple of each disk's device block</td><td>64k</td></tr>
 *   <tr><td>{@value #DISKS}</td><td>comma-separated files (or directories to create a file in), one per disk; {@code {p}} becomes the real processor's index</td><td>the temp directory</td></tr>
 *   <tr><td>{@value #IO}</td><td>{@code sync} (O_DIRECT), {@code async} (many requests in flight), {@code mmap}</td><td>sync</td></tr>
 *   <tr><td>{@value #THREADS}</td><td>{@code platform}, {@code virtual}, {@code sequential} (one VP at a time, reproducible)</td><td>virtual</td></tr>
 *   <tr><td>{@value #ALPHA}</td><td>α, delivery writes a VP keeps in flight</td><td>8</td></tr>
 *   <tr><td>{@value #MEMORY}</td><td>the memory budget that k·μ plus staging and cache must fit in</td><td>half of physical memory</td></tr>
 *   <tr><td>{@value #BOUNDARY_CACHE}</td><td>bytes of boundary-block cache (Alltoallv, Gather)</td><td>min(64m, budget/8)</td></tr>
 *   <tr><td>{@value #STAGED_COLLECTIVE}</td><td>an Allgather(v) or Alltoall on one real processor whose whole payload is at most this many bytes goes through an area of that size in memory (each VP copies its part in on entry and what it receives out after its one wait), reading and writing no other VP's context; larger ones (and Alltoallv) deliver directly into the contexts. Like the spool, outside the budget check; 0: never</td><td>1m</td></tr>
 *   <tr><td>{@value #STAGING}</td><td>bytes of aligned staging buffer per partition (one synchronous slot and α for writes in flight)</td><td>(α+1) slots of μ/128 rounded down to B, between max(B, 64k) and max(B, 1m), where k of them fit the budget; else (α+1)·max(B, 64k)</td></tr>
 *   <tr><td>{@value #DIRECT}</td><td>{@code auto}, {@code true}, {@code false}: open disks with O_DIRECT</td><td>auto</td></tr>
 *   <tr><td>{@value #LAYOUT}</td><td>{@code auto}, {@code striped}, {@code contiguous}</td><td>auto: striped iff k &lt; D (never for mmap)</td></tr>
 *   <tr><td>{@value #IO_THREADS}</td><td>threads of the async driver</td><td>max(8, 2·D)</td></tr>
 *   <tr><td>{@value #EAGER_LIMIT}</td><td>point-to-point messages up to this size are buffered when no receive waits</td><td>64k</td></tr>
 *   <tr><td>{@value #SPOOL}</td><td>bytes of memory for such buffered messages</td><td>16m</td></tr>
 *   <tr><td>{@value #STATS_OUT}</td><td>file that receives the closing key=value line</td><td>none</td></tr>
 *   <tr><td>{@value #BENCH_OUT}</td><td>gnuplot data file: time and I/O per superstep</td><td>none</td></tr>
 *   <tr><td>{@value #PROGRESS}</td><td>seconds between progress lines, logged at INFO on the {@code System.Logger} {@code org.lockstep.embsp.Simulation} (the JDK default writes them to standard error; 0: none)</td><td>0</td></tr>
 *   <tr><td>{@value #NETWORK}</td><td>P &gt; 1: the provider real processors talk through</td><td>{@value #DEFAULT_NETWORK}</td></tr>
 *   <tr><td>{@value #DELIVERY}</td><td>Alltoallv: {@code direct} (PEMS2) or {@code indirect} (PEMS1's area on disk)</td><td>direct</td></tr>
 *   <tr><td>{@value #INDIRECT_SLOT}</td><td>{@code delivery=indirect}: bytes of the indirect area per (sender, receiver), the most one message may hold (PEMS1's bound on ω)</td><td>2μ/v rounded up to B</td></tr>
 *   <tr><td>{@value #FRAME}</td><td>P &gt; 1: most message bytes in one network frame, a multiple of B</td><td>256k</td></tr>
 *   <tr><td>{@value #KEEP_RESIDENT}</td><td>{@code true}: if every context of this processor fits in the budget beside the staging and cache (v/P·μ), each keeps memory of its own and never swaps (the k partitions still bound how many VPs run at once)</td><td>false</td></tr>
 *   <tr><td>{@value #WRITE_WATCH}</td><td>{@code true}: a swap-out writes only the allocated blocks on pages written since the swap-in (the kernel's watch, Linux ≥ 6.7), not every allocated block: a third less I/O for the sort, but a page fault per page first written — 8 GiB sort here 283 s against 188 s without (BENCH.md), so off by default</td><td>false</td></tr>
 *   <tr><td>{@value #LAZY_SWAP_IN}</td><td>{@code true}: a swap-in maps the context's blocks from its file over the partition (private, copy on write) instead of reading them, so only the pages touched are read and a swap-out writes back only the pages written; needs O_DIRECT disks, a contiguous layout, B a multiple of the page, no write watch, Linux ≥ 6.7 — else every allocated block is read. What the page faults read (and what is read ahead: the parts the VPs swapped in before at the same superstep read much of, a collective's send and receive buffers) is counted when the context leaves the partition, on the meters of the swap-in that mapped it: the run's, the superstep's and the call's rows have it; {@code lockstep embsp} turns it on</td><td>false</td></tr>
 *   <tr><td>{@value #KEEP_DISKS}</td><td>{@code true}: each disk is a named file kept from run to run: an existing one is used in place (locked for the run: a second job is refused), a missing one created, and either written with zeros where it is shorter than its share, before the run's clock starts; so the file system allocates nothing at the run's first writes (on ext4 O_DIRECT writes into holes or unwritten extents go one at a time: the 4 GiB sort's Alltoallv took 11.8 s that way against 8.5 s, BENCH.md session 16). Old contents are what an allocation reads before writing</td><td>false: a new sparse file per disk, deleted after the run</td></tr>
 *   <tr><td>{@value #FAULTS}</td><td>the kit's self-test only: comma-separated {@link SelfTestFault}s to break this provider with</td><td>none</td></tr>
 * </table>
 */
public record EmBspOptions(
        int vps, int cores, long contextSize, long blockSize, List<Path> disks, IoMode io, ThreadMode threads,
        int alpha, long memoryBudget, long boundaryCache, long staging, DirectMode direct, LayoutMode layout,
        int ioThreads, long eagerLimit, long spool, Optional<Path> statsOut, Optional<Path> benchOut,
        long progressSeconds, int processors, int processor, String network, Delivery delivery, long frameBytes,
        long indirectSlot, Set<SelfTestFault> faults, boolean keepResident, boolean writeWatch, boolean lazySwapIn,
        long stagedCollective, boolean keepDisks) {

    public static final String PREFIX = "lockstep.embsp.";
    public static final String VPS = PREFIX + "vps";
    public static final String CORES = PREFIX + "cores";
    public static final String CONTEXT_SIZE = PREFIX + "contextSize";
    public static final String BLOCK_SIZE = PREFIX + "blockSize";
    public static final String DISKS = PREFIX + "disks";
    public static final String IO = PREFIX + "io";
    public static final String THREADS = PREFIX + "threads";
    public static final String ALPHA = PREFIX + "alpha";
    public static final String MEMORY = PREFIX + "memory";
    public static final String KEEP_RESIDENT = PREFIX + "keepResident";
    public static final String WRITE_WATCH = PREFIX + "writeWatch";
    public static final String LAZY_SWAP_IN = PREFIX + "lazySwapIn";
    public static final String BOUNDARY_CACHE = PREFIX + "boundaryCache";
    public static final String STAGED_COLLECTIVE = PREFIX + "stagedCollective";
    public static final String STAGING = PREFIX + "staging";
    public static final String DIRECT = PREFIX + "direct";
    public static final String LAYOUT = PREFIX + "layout";
    public static final String IO_THREADS = PREFIX + "ioThreads";
    public static final String EAGER_LIMIT = PREFIX + "eagerLimit";
    public static final String SPOOL = PREFIX + "spool";
    public static final String STATS_OUT = PREFIX + "statsOut";
    public static final String BENCH_OUT = PREFIX + "benchOut";
    public static final String PROGRESS = PREFIX + "progress";
    public static final String NETWORK = PREFIX + "network";
    public static final String DELIVERY = PREFIX + "delivery";
    public static final String FRAME = PREFIX + "frame";
    public static final String INDIRECT_SLOT = PREFIX + "indirectSlot";
    /** The conformance kit's self-test: breakages to inject (its EMBSP mutants). Never set in a real job. */
    public static final String FAULTS = PREFIX + "faults";
    public static final String KEEP_DISKS = PREFIX + "keepDisks";
    /** In a disk path, replaced by the real processor's index, so that each process gets a directory of its own. */
    public static final String PROCESSOR_PLACEHOLDER = "{p}";

    static final long DEFAULT_CONTEXT_SIZE = 1L << 20;
    static final long DEFAULT_BLOCK_SIZE = 64L << 10;
    static final int DEFAULT_ALPHA = 8;
    static final long MAX_DEFAULT_CACHE = 64L << 20;
    static final int DEFAULT_CACHE_FRACTION = 8;
    static final long MIN_SLOT = 64L << 10;
    /**
     * Default staging slots grow with μ (μ/128, within the budget) up to this, so that a message of
     * a coarse-grained program (about μ/v) leaves in one request: the 4 GiB sort's 256 KiB messages
     * went out as four 64 KiB writes before, and its Alltoallv took 7.0 s against 5.5 s (BENCH.md session 16).
     */
    static final long MAX_DEFAULT_SLOT = 1L << 20;
    static final long SLOTS_PER_CONTEXT = 128;
    /** Default threads of the async driver: at least this many requests in flight (the disk here reads 1 MiB at 1.3 GB/s at depth 1, 2.0 at depth 2). */
    static final int MIN_DEFAULT_IO_THREADS = 8;
    static final long DEFAULT_EAGER_LIMIT = 64L << 10;
    static final long DEFAULT_SPOOL = 16L << 20;
    static final long DEFAULT_STAGED_COLLECTIVE = 1L << 20;
    static final String DEFAULT_NETWORK = "mailbox";
    static final long DEFAULT_FRAME = 256L << 10;

    /** I/O drivers (seed 003 chapter 5). */
    public enum IoMode { SYNC, ASYNC, MMAP }

    /** Thread drivers (seed 003 chapters 3–4). */
    public enum ThreadMode { PLATFORM, VIRTUAL, SEQUENTIAL }

    /** Whether disks are opened with O_DIRECT. */
    public enum DirectMode { AUTO, TRUE, FALSE }

    /** How contexts are placed on the disks. */
    public enum LayoutMode { AUTO, STRIPED, CONTIGUOUS }

    /** Alltoallv's message delivery: PEMS2's direct delivery into contexts, or PEMS1's indirect area on disk (a baseline). */
    public enum Delivery { DIRECT, INDIRECT }

    /**
     * Deliberate breakages the conformance kit's self-test switches on ({@value #FAULTS}) to check
     * that its EMBSP rules catch them; off unless that property names them.
     */
    public enum SelfTestFault {
        /** Every swap-out writes the context twice: the counted I/O exceeds the thesis's bound. */
        SWAPS_TWICE,
        /** The I/O driver keeps what it is asked to write in heap memory and never writes the disks (counting as if it had). */
        KEEPS_CONTEXTS_IN_MEMORY
    }

    /** Reads and checks the options of a job of {@code options.ranks()} virtual processors on one real processor. */
    public static EmBspOptions from(JobOptions options) {
        return read(options, options.ranks(), 1, 0);
    }

    /**
     * Reads and checks the options of real processor {@code processor} of {@code processors}, one
     * process each: v is {@value #VPS} (default: one VP per processor), and each processor
     * simulates v/P of them, VPs p·v/P … (p+1)·v/P − 1 on processor p.
     */
    public static EmBspOptions ofProcessor(JobOptions options, int processors, int processor) {
        long v = options.longProperty(VPS, processors);
        if (v < 1 || v > Integer.MAX_VALUE) {
            throw arg(VPS + " = " + v + " is out of range");
        }
        if (v % processors != 0) {
            throw arg("v = " + v + " virtual processors (" + VPS + ") cannot be spread evenly over P = " + processors
                    + " real processors: each simulates v/P, so v must be a multiple of P");
        }
        return read(options, (int) v, processors, processor);
    }

    private static EmBspOptions read(JobOptions options, int v, int processors, int processor) {
        long vpsProperty = options.longProperty(VPS, v);
        if (vpsProperty != v) {
            throw arg(VPS + "=" + vpsProperty + " disagrees with the job's " + v + " ranks");
        }
        int local = v / processors;
        int k = intProperty(options, CORES, Math.min(local, Runtime.getRuntime().availableProcessors()));
        if (k < 1) {
            throw arg(CORES + " must be at least 1, got " + k);
        }
        if (local < k) {
            throw arg((processors == 1 ? "v = " + v : "v/P = " + v + "/" + processors + " = " + local) + " virtual processors is fewer than k = "
                    + k + " cores (" + CORES + "): every core needs a VP");
        }
        long block = options.longProperty(BLOCK_SIZE, DEFAULT_BLOCK_SIZE);
        if (block <= 0 || Long.bitCount(block) != 1) {
            throw arg(BLOCK_SIZE + " must be a positive power of two, got " + block);
        }
        long mu = options.longProperty(CONTEXT_SIZE, DEFAULT_CONTEXT_SIZE);
        if (mu <= 0 || mu % block != 0) {
            throw arg(CONTEXT_SIZE + " (μ) = " + mu + " must be a positive multiple of the block size B = " + block);
        }
        List<Path> disks = parseDisks(options.property(DISKS).orElse(System.getProperty("java.io.tmpdir")), processor);
        IoMode io = enumProperty(options, IO, IoMode.class, IoMode.SYNC);
        ThreadMode threads = enumProperty(options, THREADS, ThreadMode.class, ThreadMode.VIRTUAL);
        int alpha = intProperty(options, ALPHA, DEFAULT_ALPHA);
        if (alpha < 1) {
            throw arg(ALPHA + " (α) must be at least 1, got " + alpha);
        }
        long budget = options.longProperty(MEMORY, physicalMemory() / 2);
        long cache = options.longProperty(BOUNDARY_CACHE, Math.min(MAX_DEFAULT_CACHE, budget / DEFAULT_CACHE_FRACTION));
        if (cache < 0) {
            throw arg(BOUNDARY_CACHE + " must not be negative, got " + cache);
        }
        long partitions;
        try {
            partitions = Math.multiplyExact(k, mu);
        } catch (ArithmeticException e) {
            throw arg("k·μ = " + k + "·" + mu + " overflows");
        }
        long frame = options.longProperty(FRAME, DEFAULT_FRAME);
        if (frame < block || frame % block != 0) {
            throw arg(FRAME + " = " + frame + " must be a positive multiple of the block size B = " + block);
        }
        long staging = options.property(STAGING).isPresent() ? options.longProperty(STAGING, 0)
                : defaultStaging(alpha, block, mu, budget - partitions - cache, k, processors, frame);
        if (staging < block || staging % block != 0) {
            throw arg(STAGING + " = " + staging + " must be a positive multiple of the block size " + block);
        }
        long networkBuffers = processors == 1 ? 0 : networkMemory(processors, k, alpha, staging, frame);
        long needed = (io == IoMode.MMAP ? cache : partitions + k * staging + cache) + networkBuffers;
        if (needed > budget) {
            throw new LockstepException(ErrorClass.NO_MEM, "k·μ = " + k + "·" + mu + " = " + partitions
                    + " bytes of partitions plus " + k + "·" + staging + " of staging, " + cache
                    + " of boundary cache" + (networkBuffers > 0 ? " and " + networkBuffers + " of network frames" : "")
                    + " exceed the memory budget " + MEMORY + " = " + budget + " bytes");
        }
        DirectMode direct = enumProperty(options, DIRECT, DirectMode.class, DirectMode.AUTO);
        LayoutMode layout = enumProperty(options, LAYOUT, LayoutMode.class, LayoutMode.AUTO);
        if (io == IoMode.MMAP && layout == LayoutMode.STRIPED) {
            throw arg(LAYOUT + "=striped cannot be memory-mapped: a mapped context must be contiguous in one file");
        }
        int ioThreads = intProperty(options, IO_THREADS, Math.max(MIN_DEFAULT_IO_THREADS, 2 * disks.size()));
        if (ioThreads < 1) {
            throw arg(IO_THREADS + " must be at least 1, got " + ioThreads);
        }
        long eager = options.longProperty(EAGER_LIMIT, DEFAULT_EAGER_LIMIT);
        long spool = options.longProperty(SPOOL, DEFAULT_SPOOL);
        if (eager < 0 || spool < 0) {
            throw arg(EAGER_LIMIT + " and " + SPOOL + " must not be negative");
        }
        long staged = options.longProperty(STAGED_COLLECTIVE, DEFAULT_STAGED_COLLECTIVE);
        if (staged < 0) {
            throw arg(STAGED_COLLECTIVE + " must not be negative (0: never), got " + staged);
        }
        long progress = options.longProperty(PROGRESS, 0);
        if (progress < 0) {
            throw arg(PROGRESS + " must not be negative (0: no progress lines), got " + progress);
        }
        String network = options.property(NETWORK).orElse(DEFAULT_NETWORK).trim();
        Delivery delivery = enumProperty(options, DELIVERY, Delivery.class, Delivery.DIRECT);
        if (delivery == Delivery.INDIRECT && io == IoMode.MMAP) {
            throw arg(DELIVERY + "=indirect (PEMS1's area on disk) needs explicit I/O: " + IO + "=sync or async, not mmap");
        }
        // PEMS1 needs a bound on each message: by default twice a VP's even share of μ
        long slot = options.longProperty(INDIRECT_SLOT, Math.max(block, -Math.floorDiv(-2 * mu / v, block) * block));
        if (slot < block || slot % block != 0) {
            throw arg(INDIRECT_SLOT + " = " + slot + " must be a positive multiple of the block size B = " + block);
        }
        // every context in memory of its own: v/P·μ in place of k·μ
        boolean keepResident = Boolean.parseBoolean(options.property(KEEP_RESIDENT).orElse("false").trim()) && io != IoMode.MMAP
                && Math.multiplyHigh(v / processors, mu) == 0 && (long) (v / processors) * mu <= budget - (needed - partitions);
        return new EmBspOptions(v, k, mu, block, disks, io, threads, alpha, budget, cache, staging, direct, layout,
                ioThreads, eager, spool, options.property(STATS_OUT).map(Path::of), options.property(BENCH_OUT).map(Path::of),
                progress, processors, processor, network, delivery, frame, slot, faults(options), keepResident,
                Boolean.parseBoolean(options.property(WRITE_WATCH).orElse("false").trim()),
                Boolean.parseBoolean(options.property(LAZY_SWAP_IN).orElse("false").trim()), staged,
                Boolean.parseBoolean(options.property(KEEP_DISKS).orElse("false").trim()));
    }

    /**
     * (α+1) slots of μ/128 rounded down to B, at least max(B, 64 KiB) and at most max(B, 1 MiB), if
     * k of them fit in {@code room} beside the network's buffers; else slots of max(B, 64 KiB).
     */
    private static long defaultStaging(int alpha, long block, long mu, long room, int k, int processors, long frame) {
        long small = (alpha + 1L) * Math.max(block, MIN_SLOT);
        long slot = Math.max(Math.max(block, MIN_SLOT), Math.min(Math.max(block, MAX_DEFAULT_SLOT), mu / SLOTS_PER_CONTEXT / block * block));
        long large = (alpha + 1L) * slot;
        long network = processors == 1 ? 0 : networkMemory(processors, k, alpha, large, frame);
        return large > small && k * large + network <= room ? large : small;
    }

    /**
     * Memory a real processor of P holds for the network: the agent's staging, one receive frame
     * per other processor, and α frames in flight for each of k VPs and the agent.
     */
    static long networkMemory(int processors, int k, int alpha, long staging, long frame) {
        return staging + (processors - 1L + (k + 1L) * alpha) * (frame + 64);
    }

    /** v/P, the VPs this real processor simulates. */
    public int localVps() {
        return vps / processors;
    }

    /** The id of this processor's first VP. */
    public int firstVp() {
        return processor * localVps();
    }

    /** The real processor that simulates VP {@code vp}. */
    public int processorOf(int vp) {
        return vp / localVps();
    }

    /**
     * The parameters every real processor must share, as {@code key=value} pairs: v, P, k, μ, B,
     * D, the drivers, α, the delivery and the frame size. Disk paths and memory budgets may differ.
     */
    public String sharedParameters() {
        return String.join(" ", "vps=" + vps, "processors=" + processors, "cores=" + cores, "contextSize=" + contextSize,
                "blockSize=" + blockSize, "disks=" + disks.size(), "io=" + io.name().toLowerCase(Locale.ROOT),
                "threads=" + threads.name().toLowerCase(Locale.ROOT), "alpha=" + alpha,
                "delivery=" + delivery.name().toLowerCase(Locale.ROOT), "frame=" + frameBytes);
    }

    /** D, the number of disks. */
    public int diskCount() {
        return disks.size();
    }

    /** Whether contexts are striped block by block across the disks. */
    public boolean striped() {
        return switch (layout) {
            case STRIPED -> true;
            case CONTIGUOUS -> false;
            case AUTO -> io != IoMode.MMAP && cores < disks.size();
        };
    }

    /** (v/P)·μ, the disk space of this processor's contexts. */
    public long totalContextBytes() {
        return Math.multiplyExact((long) localVps(), contextSize);
    }

    private static Set<SelfTestFault> faults(JobOptions options) {
        Set<SelfTestFault> faults = EnumSet.noneOf(SelfTestFault.class);
        for (String name : options.property(FAULTS).orElse("").split(",")) {
            if (!name.isBlank()) {
                try {
                    faults.add(SelfTestFault.valueOf(name.trim().toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw arg(FAULTS + " names no fault '" + name.trim() + "'; known: " + EnumSet.allOf(SelfTestFault.class));
                }
            }
        }
        return Set.copyOf(faults);
    }

    private static List<Path> parseDisks(String text, int processor) {
        List<Path> paths = new ArrayList<>();
        for (String part : text.split(",")) {
            if (!part.isBlank()) {
                paths.add(Path.of(part.trim().replace(PROCESSOR_PLACEHOLDER, Integer.toString(processor))));
            }
        }
        if (paths.isEmpty()) {
            throw arg(DISKS + " names no disk: '" + text + "'");
        }
        return List.copyOf(paths);
    }

    private static int intProperty(JobOptions options, String key, int defaultValue) {
        long value = options.longProperty(key, defaultValue);
        if (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE) {
            throw arg(key + " = " + value + " is out of range");
        }
        return (int) value;
    }

    private static <E extends Enum<E>> E enumProperty(JobOptions options, String key, Class<E> type, E defaultValue) {
        Optional<String> value = options.property(key);
        if (value.isEmpty()) {
            return defaultValue;
        }
        try {
            return Enum.valueOf(type, value.get().trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            List<String> allowed = new ArrayList<>();
            for (E constant : type.getEnumConstants()) {
                allowed.add(constant.name().toLowerCase(Locale.ROOT));
            }
            throw arg(key + " = '" + value.get() + "' is not one of " + allowed);
        }
    }

    /** Physical memory from /proc/meminfo; where that is missing, four times the heap limit. */
    static long physicalMemory() {
        Path meminfo = Path.of("/proc/meminfo");
        try {
            for (String line : Files.readAllLines(meminfo)) {
                if (line.startsWith("MemTotal:")) {
                    String[] fields = line.trim().split("\\s+");
                    return Long.parseLong(fields[1]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable: fall through
        }
        return 4 * Runtime.getRuntime().maxMemory();
    }

    private static LockstepException arg(String message) {
        return new LockstepException(ErrorClass.ARG, message);
    }
}
