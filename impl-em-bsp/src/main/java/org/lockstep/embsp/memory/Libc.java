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
 * The few libc calls the kernel's page tracking needs (userfaultfd, ioctl, mmap, madvise, posix_fadvise,
 * cachestat), bound once through FFM; {@link #NATIVE} is null where there are none to bind (not
 * Linux, unknown arch). Also {@code PAGEMAP_SCAN}, which both the write watch and file-backed
 * contexts ask.
 *
 * <pre>
 * struct pm_scan_arg (12 × u64)          struct page_region (3 × u64)
 * 0 size  1 flags  2 start  3 end        0 start  1 end  2 categories
 * 4 walk_end  5 vec  6 vec_len  7 max_pages
 * 8 category_inverted  9 category_mask  10 category_anyof_mask  11 return_mask
 * </pre>
 */
record Libc(MethodHandle syscall, MethodHandle ioctl, MethodHandle open, MethodHandle close, MethodHandle mmap,
            MethodHandle munmap, MethodHandle madvise, MethodHandle fadvise, MethodHandle rangeSyscall, long userfaultfdNumber, long cachestatNumber) {
    static final long PAGE = 4096;
    static final long UFFD_API = 0xAA;
    static final long UFFDIO_API = 0xC018AA3FL;
    static final long UFFDIO_REGISTER = 0xC020AA00L;
    private static final int O_CLOEXEC = 0x80000;
    private static final int O_NONBLOCK = 0x800;
    private static final int UFFD_USER_MODE_ONLY = 1;

    static final long PAGEMAP_SCAN = 0xC0606610L;
    static final long PAGE_IS_WRITTEN = 1 << 1;
    static final long PAGE_IS_FILE = 1 << 2;
    static final long PAGE_IS_PRESENT = 1 << 3;
    static final long PAGE_IS_PFNZERO = 1 << 5;
    private static final int REGIONS_PER_SCAN = 512;
    private static final MemoryLayout SCAN_ARGUMENT = MemoryLayout.sequenceLayout(12, ValueLayout.JAVA_LONG);

    static final Libc NATIVE = load();

    private static Libc load() {
        String os = System.getProperty("os.name", "");
        long number = switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> 323;
            case "aarch64" -> 282;
            default -> -1;
        };
        long cachestat = 451; // the same on both: new system calls share one table
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
            MethodHandle mmap = linker.downcallHandle(libc.findOrThrow("mmap"), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG));
            MethodHandle munmap = linker.downcallHandle(libc.findOrThrow("munmap"),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
            MethodHandle madvise = linker.downcallHandle(libc.findOrThrow("madvise"),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            MethodHandle fadvise = linker.downcallHandle(libc.findOrThrow("posix_fadvise"), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            // syscall(nr, fd, struct *, struct *, flags): cachestat
            MethodHandle rangeSyscall = linker.downcallHandle(libc.findOrThrow("syscall"), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
                    Linker.Option.firstVariadicArg(1));
            return new Libc(syscall, ioctl, open, close, mmap, munmap, madvise, fadvise, rangeSyscall, number, cachestat);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * A non-blocking userfaultfd for faults from user mode only (allowed without privileges), with
     * {@code features} agreed, and {@code regions} registered in {@code mode}; closed again on failure.
     */
    int openUserfaultfd(long features, long mode, Iterable<MemorySegment> regions, String refusal) throws Throwable {
        int uffd = (int) (long) syscall.invokeExact(userfaultfdNumber, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
        if (uffd < 0) {
            throw new IllegalStateException("userfaultfd refused");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment api = arena.allocate(24, 8);
            api.setAtIndex(ValueLayout.JAVA_LONG, 0, UFFD_API);
            api.setAtIndex(ValueLayout.JAVA_LONG, 1, features);
            if ((int) ioctl.invokeExact(uffd, UFFDIO_API, api) != 0) {
                throw new IllegalStateException(refusal);
            }
            MemorySegment register = arena.allocate(32, 8);
            for (MemorySegment region : regions) {
                register.fill((byte) 0);
                register.setAtIndex(ValueLayout.JAVA_LONG, 0, pageFloor(region.address()));
                register.setAtIndex(ValueLayout.JAVA_LONG, 1, pageCeil(region.address() + region.byteSize()) - pageFloor(region.address()));
                register.setAtIndex(ValueLayout.JAVA_LONG, 2, mode);
                if ((int) ioctl.invokeExact(uffd, UFFDIO_REGISTER, register) != 0) {
                    throw new IllegalStateException("userfaultfd cannot register a partition (" + refusal + ")");
                }
            }
            return uffd;
        } catch (Throwable e) {
            closeQuietly(uffd);
            throw e;
        }
    }

    /**
     * The pages of {@code region} whose categories, each flipped where {@code inverted} has its bit,
     * have every bit of {@code mask}, as {start, end} offsets into it (whole pages clipped to it,
     * increasing); with {@code flags} {@code PM_SCAN_WP_MATCHING} they are write-protected again in the
     * same step. Null if the kernel refused.
     */
    List<long[]> pagemapScan(int pagemap, MemorySegment region, long flags, long inverted, long mask) throws Throwable {
        long base = region.address();
        long start = pageFloor(base);
        long end = pageCeil(base + region.byteSize());
        List<long[]> ranges = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment argument = arena.allocate(SCAN_ARGUMENT);
            MemorySegment vector = arena.allocate(24L * REGIONS_PER_SCAN, 8);
            while (start < end) {
                argument.fill((byte) 0);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 0, SCAN_ARGUMENT.byteSize());
                argument.setAtIndex(ValueLayout.JAVA_LONG, 1, flags);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 2, start);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 3, end);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 5, vector.address());
                argument.setAtIndex(ValueLayout.JAVA_LONG, 6, REGIONS_PER_SCAN);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 8, inverted);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 9, mask);
                argument.setAtIndex(ValueLayout.JAVA_LONG, 11, mask);
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

    void closeQuietly(int fd) {
        try {
            int ignored = (int) close.invokeExact(fd);
        } catch (Throwable e) {
            // nothing to do: the descriptor is gone either way
        }
    }

    static long pageFloor(long address) {
        return Math.floorDiv(address, PAGE) * PAGE;
    }

    static long pageCeil(long address) {
        return -Math.floorDiv(-address, PAGE) * PAGE;
    }
}
