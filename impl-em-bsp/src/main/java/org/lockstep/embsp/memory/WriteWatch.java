package org.lockstep.embsp.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Which pages of the partitions were written, by anyone, since they were last looked at: the
 * kernel's write watch (Linux ≥ 6.7: a userfaultfd registers the partitions for asynchronous
 * write-protection, and {@code PAGEMAP_SCAN} on {@code /proc/self/pagemap} reports the pages
 * written and protects them again in one atomic step). A context's swap-out writes back only its
 * allocated blocks that lie on written pages; every store counts — the program's through the
 * segments it was handed, a delivery's memory copy, an O_DIRECT read into the partition — because
 * the hardware page tables see them all.
 *
 * <p>Where the kernel offers no such watch (other systems, older kernels, a seccomp filter), the
 * watch is {@linkplain #available() unavailable} and reports every page written: swaps then move
 * every allocated block, as before. A scan that fails mid-run does the same.

 */
public final class WriteWatch implements AutoCloseable {
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final long UFFD_FEATURE_WP_UNPOPULATED = 1L << 13;
    private static final long UFFD_FEATURE_WP_ASYNC = 1L << 15;
    private static final long UFFDIO_REGISTER_MODE_WP = 2;
    private static final long UFFDIO_WRITEPROTECT = 0xC018AA06L;
    private static final long PM_SCAN_WP_MATCHING = 1;
    private static final long PM_SCAN_CHECK_WPASYNC = 2;

    private static final Native NATIVE = Native.load();

    private final int userfaultfd;
    private final int pagemap;
    private final String unavailableReason;

    private WriteWatch(int userfaultfd, int pagemap, String unavailableReason) {
        this.userfaultfd = userfaultfd;
        this.pagemap = pagemap;
        this.unavailableReason = unavailableReason;
    }

    /** A watch over {@code regions} (registered now), or an unavailable one that says why. */
    public static WriteWatch over(List<MemorySegment> regions) {
        if (NATIVE == null) {
            return new WriteWatch(-1, -1, "no userfaultfd on this platform");
        }
        try {
            return NATIVE.open(regions);
        } catch (Throwable e) {
            return new WriteWatch(-1, -1, e.getMessage());
        }
    }

    /** A watch that reports every page written (for memory-mapped contexts, which need none). */
    public static WriteWatch none() {
        return new WriteWatch(-1, -1, "not needed");
    }

    public boolean available() {
        return unavailableReason == null;
    }

    /** Why the watch is unavailable, or null. */
    public String unavailableReason() {
        return unavailableReason;
    }

    /**
     * Forgets what was written to {@code region} so far (after a swap-in filled it): from now on
     * only new stores count.
     */
    public void forget(MemorySegment region) {
        written(region);
    }

    /**
     * Lifts the protection of {@code region} until the next {@link #forget}, so that a swap-in's
     * own read into it does not take a page fault for every page (about 2 µs each, measured here);
     * what is stored meanwhile is not counted. Harmless if refused: the stores are then counted.
     */
    public void allowWrites(MemorySegment region) {
        if (available()) {
            NATIVE.unprotect(userfaultfd, region);
        }
    }

    /**
     * The byte ranges of {@code region} ({start, end} offsets into it, whole pages clipped to it,
     * increasing) written since the last call for it, which protects them again; or null if that
     * cannot be told (then the caller must assume every byte was written).
     */
    public List<long[]> written(MemorySegment region) {
        if (!available()) {
            return null;
        }
        try {
            return NATIVE.scan(pagemap, region);
        } catch (Throwable e) {
            return null;
        }
    }

    @Override
    public void close() {
        if (available()) {
            // closing the userfaultfd ends the registrations
            NATIVE.close(userfaultfd);
            NATIVE.close(pagemap);
        }
    }

    /** The write watch's calls, over {@link Libc}'s bindings. */
    private record Native(Libc libc) {
        static Native load() {
            return Libc.NATIVE == null ? null : new Native(Libc.NATIVE);
        }

        WriteWatch open(List<MemorySegment> regions) throws Throwable {
            int uffd = libc.openUserfaultfd(UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED, UFFDIO_REGISTER_MODE_WP, regions,
                    "the kernel has no asynchronous userfaultfd write-protection");
            int pagemap = -1;
            try (Arena arena = Arena.ofConfined()) {
                pagemap = (int) libc.open().invokeExact(arena.allocateFrom("/proc/self/pagemap"), O_RDONLY | O_CLOEXEC);
                if (pagemap < 0) {
                    throw new IllegalStateException("/proc/self/pagemap cannot be opened");
                }
                WriteWatch watch = new WriteWatch(uffd, pagemap, null);
                for (MemorySegment region : regions) {
                    if (scan(pagemap, region) == null) {
                        throw new IllegalStateException("PAGEMAP_SCAN cannot write-protect the partitions");
                    }
                }
                return watch;
            } catch (Throwable e) {
                close(uffd);
                if (pagemap >= 0) {
                    close(pagemap);
                }
                throw e;
            }
        }

        void unprotect(int uffd, MemorySegment region) {
            long start = Libc.pageFloor(region.address());
            long end = Libc.pageCeil(region.address() + region.byteSize());
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment argument = arena.allocate(24, 8);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 0, start);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 1, end - start);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 2, 0); // mode 0: writable again
                int ignored = (int) libc.ioctl().invokeExact(uffd, UFFDIO_WRITEPROTECT, argument);
            } catch (Throwable e) {
                // still protected: the stores take their faults and are counted, which is safe
            }
        }

        /** Written pages of {@code region}, protected again; null if the kernel refused. */
        List<long[]> scan(int pagemap, MemorySegment region) throws Throwable {
            return libc.pagemapScan(pagemap, region, PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC, 0, Libc.PAGE_IS_WRITTEN);
        }

        void close(int fd) {
            libc.closeQuietly(fd);
        }
    }
}
