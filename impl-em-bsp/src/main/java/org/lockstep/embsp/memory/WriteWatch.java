package org.lockstep.embsp.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
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
 *
 * <pre>
 * struct pm_scan_arg (12 × u64)          struct page_region (3 × u64)
 * 0 size  1 flags  2 start  3 end        0 start  1 end  2 categories
 * 4 walk_end  5 vec  6 vec_len  7 max_pages
 * 8 category_inverted  9 category_mask  10 category_anyof_mask  11 return_mask
 * </pre>
 */
public final class WriteWatch implements AutoCloseable {
    private static final long PAGE = 4096;
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int O_NONBLOCK = 0x800;
    private static final int UFFD_USER_MODE_ONLY = 1;
    private static final long UFFD_API = 0xAA;
    private static final long UFFD_FEATURE_WP_UNPOPULATED = 1L << 13;
    private static final long UFFD_FEATURE_WP_ASYNC = 1L << 15;
    private static final long UFFDIO_API = 0xC018AA3FL;
    private static final long UFFDIO_REGISTER = 0xC020AA00L;
    private static final long UFFDIO_REGISTER_MODE_WP = 2;
    private static final long UFFDIO_WRITEPROTECT = 0xC018AA06L;
    private static final long PAGEMAP_SCAN = 0xC0606610L;
    private static final long PM_SCAN_WP_MATCHING = 1;
    private static final long PM_SCAN_CHECK_WPASYNC = 2;
    private static final long PAGE_IS_WRITTEN = 2;
    private static final int REGIONS_PER_SCAN = 512;
    private static final MemoryLayout SCAN_ARGUMENT = MemoryLayout.sequenceLayout(12, ValueLayout.JAVA_LONG);

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

    /** The libc calls, bound once; null where there are none to bind. */
    private record Native(MethodHandle syscall, MethodHandle ioctl, MethodHandle open, MethodHandle close, long userfaultfdNumber) {
        static Native load() {
            String os = System.getProperty("os.name", "");
            long number = switch (System.getProperty("os.arch", "")) {
                case "amd64", "x86_64" -> 323;
                case "aarch64" -> 282;
                default -> -1;
            };
            if (!os.startsWith("Linux") || number < 0) {
                return null;
            }
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                MethodHandle syscall = linker.downcallHandle(libc.findOrThrow("syscall"),
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT),
                        Linker.Option.firstVariadicArg(1));
                MethodHandle ioctl = linker.downcallHandle(libc.findOrThrow("ioctl"),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
                        Linker.Option.firstVariadicArg(2));
                MethodHandle open = linker.downcallHandle(libc.findOrThrow("open"),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
                MethodHandle close = linker.downcallHandle(libc.findOrThrow("close"),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                return new Native(syscall, ioctl, open, close, number);
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }

        WriteWatch open(List<MemorySegment> regions) throws Throwable {
            int uffd = (int) (long) syscall.invokeExact(userfaultfdNumber, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
            if (uffd < 0) {
                throw new IllegalStateException("userfaultfd refused");
            }
            int pagemap = -1;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment api = arena.allocate(24, 8);
                api.setAtIndex(ValueLayout.JAVA_LONG, 0, UFFD_API);
                api.setAtIndex(ValueLayout.JAVA_LONG, 1, UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED);
                if ((int) ioctl.invokeExact(uffd, UFFDIO_API, api) != 0) {
                    throw new IllegalStateException("the kernel has no asynchronous userfaultfd write-protection");
                }
                MemorySegment register = arena.allocate(32, 8);
                for (MemorySegment region : regions) {
                    long start = Math.floorDiv(region.address(), PAGE) * PAGE;
                    long end = -Math.floorDiv(-(region.address() + region.byteSize()), PAGE) * PAGE;
                    register.fill((byte) 0);
                    register.setAtIndex(ValueLayout.JAVA_LONG, 0, start);
                    register.setAtIndex(ValueLayout.JAVA_LONG, 1, end - start);
                    register.setAtIndex(ValueLayout.JAVA_LONG, 2, UFFDIO_REGISTER_MODE_WP);
                    if ((int) ioctl.invokeExact(uffd, UFFDIO_REGISTER, register) != 0) {
                        throw new IllegalStateException("userfaultfd cannot watch a partition for writes");
                    }
                }
                pagemap = (int) open.invokeExact(arena.allocateFrom("/proc/self/pagemap"), O_RDONLY | O_CLOEXEC);
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
            long start = Math.floorDiv(region.address(), PAGE) * PAGE;
            long end = -Math.floorDiv(-(region.address() + region.byteSize()), PAGE) * PAGE;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment argument = arena.allocate(24, 8);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 0, start);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 1, end - start);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 2, 0); // mode 0: writable again
                int ignored = (int) ioctl.invokeExact(uffd, UFFDIO_WRITEPROTECT, argument);
            } catch (Throwable e) {
                // still protected: the stores take their faults and are counted, which is safe
            }
        }

        /** Written pages of {@code region}, protected again; null if the kernel refused. */
        List<long[]> scan(int pagemap, MemorySegment region) throws Throwable {
            long base = region.address();
            long start = Math.floorDiv(base, PAGE) * PAGE;
            long end = -Math.floorDiv(-(base + region.byteSize()), PAGE) * PAGE;
            List<long[]> ranges = new ArrayList<>();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment argument = arena.allocate(SCAN_ARGUMENT);
                MemorySegment vector = arena.allocate(24L * REGIONS_PER_SCAN, 8);
                while (start < end) {
                    argument.fill((byte) 0);
                    argument.setAtIndex(ValueLayout.JAVA_LONG, 0, SCAN_ARGUMENT.byteSize());
                    argument.setAtIndex(ValueLayout.JAVA_LONG, 1, PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC);
                    argument.setAtIndex(ValueLayout.JAVA_LONG, 2, start);
                    argument.setAtIndex(ValueLayout.JAVA_LONG, 3, end);
                    argument.setAtIndex(ValueLayout.JAVA_LONG, 5, vector.address());
                    argument.setAtIndex(ValueLayout.JAVA_LONG, 6, REGIONS_PER_SCAN);
                    argument.setAtIndex(ValueLayout.JAVA_LONG, 9, PAGE_IS_WRITTEN);
                    argument.setAtIndex(ValueLayout.JAVA_LONG, 11, PAGE_IS_WRITTEN);
                    int found = (int) ioctl.invokeExact(pagemap, PAGEMAP_SCAN, argument);
                    if (found < 0) {
                        return null;
                    }
                    for (int i = 0; i < found; i++) {
                        long from = Math.max(base, vector.getAtIndex(ValueLayout.JAVA_LONG, 3L * i));
                        long to = Math.min(base + region.byteSize(), vector.getAtIndex(ValueLayout.JAVA_LONG, 3L * i + 1));
                        if (to > from) {
                            ranges.add(new long[] {from - base, to - base});
                        }
                    }
                    long walkEnd = argument.getAtIndex(ValueLayout.JAVA_LONG, 4);
                    if (walkEnd <= start) {
                        return null;
                    }
                    start = walkEnd;
                }
            }
            return ranges;
        }

        void close(int fd) {
            try {
                int ignored = (int) close.invokeExact(fd);
            } catch (Throwable e) {
                // nothing to do: the descriptor is gone either way
            }
        }
    }
}
