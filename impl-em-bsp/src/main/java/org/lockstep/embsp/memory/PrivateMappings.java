package org.lockstep.embsp.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * Lazy swap-in by the kernel: a context's blocks on disk are mapped privately ({@code MAP_PRIVATE |
 * MAP_FIXED}) over its partition, so a page is read from the file only when someone touches it
 * (the program, a delivery's copy, an O_DIRECT write from it), and a store makes it a private
 * anonymous copy that the file never sees. {@code PAGEMAP_SCAN} then tells the written pages (present
 * and anonymous, not the shared zero page) from the only read ones (file pages), so a swap-out writes
 * back just those; {@code cachestat} counts the pages the faults read into the page cache, which
 * {@code POSIX_FADV_DONTNEED} then drops, so the cache holds no more than the contexts in the
 * partitions. Faults are the kernel's own: no thread of this JVM serves them (a Java fault handler
 * would deadlock with a safepoint that waits for the faulting thread).
 *
 * <pre>
 * struct cachestat_range { u64 off; u64 len; }
 * struct cachestat { u64 nr_cache; u64 nr_dirty; u64 nr_writeback; u64 nr_evicted; u64 nr_recently_evicted; }
 * </pre>
 */
public final class PrivateMappings implements AutoCloseable {
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int PROT_READ_WRITE = 3;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_FIXED = 0x10;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_NORESERVE = 0x4000;
    private static final int POSIX_FADV_DONTNEED = 4;
    private static final int MADV_RANDOM = 1;
    private static final int MADV_WILLNEED = 3;
    private static final int MADV_HUGEPAGE = 14;
    private static final long HUGE_PAGE = 2L << 20;
    /** Bytes per read-ahead hint: the kernel reads at most the larger of the device's read-ahead window and largest request per hint. */
    private static final long READ_AHEAD_PIECE = 1L << 20;
    private static final long WRITTEN_PAGE = Libc.PAGE_IS_PRESENT | Libc.PAGE_IS_FILE | Libc.PAGE_IS_PFNZERO;
    /** Present, but neither a file page nor the zero page: a private copy, i.e. written. */
    private static final long WRITTEN_INVERTED = Libc.PAGE_IS_FILE | Libc.PAGE_IS_PFNZERO;

    private final Libc libc;
    private final int[] files;
    private final int pagemap;
    private final String unavailableReason;

    private PrivateMappings(Libc libc, int[] files, int pagemap, String unavailableReason) {
        this.libc = libc;
        this.files = files;
        this.pagemap = pagemap;
        this.unavailableReason = unavailableReason;
    }

    /** Mappings of {@code disks}' files (opened now, read-only), or an unavailable instance that says why. */
    public static PrivateMappings over(List<Path> disks) {
        Libc libc = Libc.NATIVE;
        if (libc == null) {
            return new PrivateMappings(null, new int[0], -1, "no mmap through FFM on this platform");
        }
        int[] fds = new int[disks.size()];
        java.util.Arrays.fill(fds, -1);
        int pagemap = -1;
        try (Arena arena = Arena.ofConfined()) {
            for (int d = 0; d < fds.length; d++) {
                fds[d] = (int) libc.open().invokeExact(arena.allocateFrom(disks.get(d).toString()), O_RDONLY | O_CLOEXEC);
                if (fds[d] < 0) {
                    throw new IllegalStateException(disks.get(d) + " cannot be opened for mapping");
                }
            }
            pagemap = (int) libc.open().invokeExact(arena.allocateFrom("/proc/self/pagemap"), O_RDONLY | O_CLOEXEC);
            if (pagemap < 0) {
                throw new IllegalStateException("/proc/self/pagemap cannot be opened");
            }
            PrivateMappings mappings = new PrivateMappings(libc, fds, pagemap, null);
            mappings.probe();
            return mappings;
        } catch (Throwable e) {
            for (int fd : fds) {
                if (fd >= 0) {
                    libc.closeQuietly(fd);
                }
            }
            if (pagemap >= 0) {
                libc.closeQuietly(pagemap);
            }
            return new PrivateMappings(null, new int[0], -1, String.valueOf(e.getMessage()));
        }
    }

    /** Whether the kernel can scan and count pages (Linux ≥ 6.7: PAGEMAP_SCAN, cachestat). */
    private void probe() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(Libc.PAGE, Libc.PAGE);
            if (libc.pagemapScan(pagemap, page, 0, WRITTEN_INVERTED, WRITTEN_PAGE) == null) {
                throw new IllegalStateException("PAGEMAP_SCAN is not available");
            }
            if (files.length > 0) {
                cachedBytes(0, 0, Libc.PAGE);
            }
        }
    }

    public boolean available() {
        return unavailableReason == null;
    }

    /** Why these mappings are unavailable, or null. */
    public String unavailableReason() {
        return unavailableReason;
    }

    /**
     * {@code size} bytes of anonymous memory aligned to {@code alignment} (a multiple of the page),
     * unmapped when {@code arena} closes: a partition that file ranges can be mapped over.
     */
    public MemorySegment allocate(long size, long alignment, Arena arena) {
        long aligned = Math.max(alignment, HUGE_PAGE);
        long length = Libc.pageCeil(size) + aligned;
        long base = mmap(0, length, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, "a partition");
        long start = -Math.floorDiv(-base, aligned) * aligned;
        hugePages(start, Libc.pageCeil(size));
        return MemorySegment.ofAddress(start).reinterpret(size, arena, ignored -> unmap(base, length));
    }

    /** Fresh anonymous pages over [start, start + length), huge where they can be. */
    private void fresh(long start, long length, String what) {
        mmap(start, length, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, what);
        hugePages(start, length);
    }

    /**
     * Asks for transparent huge pages: fresh memory filled page by page took a fault per 4 KiB (the
     * 2 GiB sort, when every swap-in made the whole partition fresh: 2.5 M faults, ~10 s of system time).
     */
    private void hugePages(long start, long length) {
        try {
            int ignored = (int) libc.madvise().invokeExact(start, length, MADV_HUGEPAGE);
        } catch (Throwable e) {
            // a hint: 4 KiB pages otherwise
        }
    }

    /**
     * Maps {@code length} bytes of disk {@code disk}'s file at {@code position} privately over
     * {@code partition} at {@code offset}, without the kernel's read-around: a fault reads its page
     * only. (The read-around window is the device's read-ahead, 8 MiB on this machine's disk: around
     * one touched page it read megabytes of other blocks and other VPs' contexts, which no swap
     * asked for: a 128 MiB sort (32 VPs) read 724 MB by the kernel's count with it, 380 MB without.)
     */
    public void map(MemorySegment partition, long offset, long length, int disk, long position) {
        mmap(partition.address() + offset, length, MAP_PRIVATE | MAP_FIXED, files[disk], position, "a context's blocks");
        int advised;
        try {
            advised = (int) libc.madvise().invokeExact(partition.address() + offset, length, MADV_RANDOM);
        } catch (Throwable e) {
            throw new LockstepException(ErrorClass.INTERN, "madvise of a context's blocks failed: " + e, e);
        }
        if (advised != 0) {
            throw new LockstepException(ErrorClass.INTERN, "madvise(MADV_RANDOM) of a context's blocks was refused");
        }
    }

    /**
     * Starts reading {@code length} bytes of {@code partition} at {@code offset} (inside one mapping)
     * into the page cache in large requests, so that the faults that touch them find them there: a
     * hint, and without read-around a page-by-page scan would wait for one 4 KiB read per page.
     */
    public void readAhead(MemorySegment partition, long offset, long length) {
        long from = Libc.pageFloor(partition.address() + offset);
        long to = Libc.pageCeil(partition.address() + offset + length);
        // the kernel reads at most the device's read-ahead window (or its largest request) per hint
        for (long piece = from; piece < to; piece += READ_AHEAD_PIECE) {
            try {
                int ignored = (int) libc.madvise().invokeExact(piece, Math.min(READ_AHEAD_PIECE, to - piece), MADV_WILLNEED);
            } catch (Throwable e) {
                return; // a hint: the faults read the pages one by one instead
            }
        }
    }

    /**
     * Fresh anonymous pages over the whole pages of {@code partition} inside [{@code from}, {@code to}):
     * memory that must no longer show a file's pages (freed by the program, or left by its context),
     * so that a later store there neither reads the file page first nor copies it.
     */
    public void forget(MemorySegment partition, long from, long to) {
        long start = Libc.pageCeil(partition.address() + from);
        long end = Libc.pageFloor(partition.address() + to);
        if (end > start) {
            fresh(start, end - start, "freed pages");
        }
    }

    /** Pages of {@code partition} written since its mappings were made, as {start, end} offsets; null if that cannot be told. */
    public List<long[]> written(MemorySegment partition) {
        try {
            return libc.pagemapScan(pagemap, partition, 0, WRITTEN_INVERTED, WRITTEN_PAGE);
        } catch (Throwable e) {
            return null;
        }
    }

    /** As {@link #written(MemorySegment)}, for the pages of [{@code from}, {@code to}) of {@code partition} only. */
    public List<long[]> written(MemorySegment partition, long from, long to) {
        List<long[]> inside = written(partition.asSlice(from, to - from));
        if (inside != null) {
            for (long[] r : inside) {
                r[0] += from;
                r[1] += from;
            }
        }
        return inside;
    }

    /** Bytes of {@code length} bytes of disk {@code disk}'s file at {@code position} that the page cache holds (read from the disk since the last {@link #drop}). */
    public long cachedBytes(int disk, long position, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment range = arena.allocate(16, 8);
            range.setAtIndex(ValueLayout.JAVA_LONG, 0, position);
            range.setAtIndex(ValueLayout.JAVA_LONG, 1, length);
            MemorySegment stat = arena.allocate(40, 8);
            long result = (long) libc.rangeSyscall().invokeExact(libc.cachestatNumber(), files[disk], range, stat, 0);
            if (result != 0) {
                throw new LockstepException(ErrorClass.DEVICE, "cachestat refused on disk " + disk);
            }
            return stat.getAtIndex(ValueLayout.JAVA_LONG, 0) * Libc.PAGE;
        } catch (LockstepException e) {
            throw e;
        } catch (Throwable e) {
            throw new LockstepException(ErrorClass.DEVICE, "the page cache of disk " + disk + " cannot be counted: " + e, e);
        }
    }

    /** Drops the page cache of {@code length} bytes of disk {@code disk}'s file at {@code position} (pages no mapping holds). */
    public void drop(int disk, long position, long length) {
        int advised;
        try {
            advised = (int) libc.fadvise().invokeExact(files[disk], position, length, POSIX_FADV_DONTNEED);
        } catch (Throwable e) {
            throw new LockstepException(ErrorClass.DEVICE, "the page cache of disk " + disk + " cannot be dropped: " + e, e);
        }
        if (advised != 0) {
            throw new LockstepException(ErrorClass.DEVICE, "the page cache of disk " + disk + " cannot be dropped (" + advised + ")");
        }
    }

    private long mmap(long address, long length, int flags, int fd, long position, String what) {
        long result;
        try {
            result = (long) libc.mmap().invokeExact(address, length, PROT_READ_WRITE, flags, fd, position);
        } catch (Throwable e) {
            throw new LockstepException(ErrorClass.NO_MEM, "mmap of " + what + " failed: " + e, e);
        }
        if (result == -1L || address != 0 && result != address) {
            throw new LockstepException(ErrorClass.NO_MEM, "mmap of " + what + " (" + length + " bytes) was refused");
        }
        return result;
    }

    private void unmap(long address, long length) {
        try {
            int ignored = (int) libc.munmap().invokeExact(address, length);
        } catch (Throwable e) {
            // the process is ending its use of the range either way
        }
    }

    @Override
    public void close() {
        if (libc == null) {
            return;
        }
        for (int fd : files) {
            libc.closeQuietly(fd);
        }
        libc.closeQuietly(pagemap);
    }
}
