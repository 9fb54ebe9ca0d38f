package org.lockstep.embsp.io;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The contexts on disk: block I/O on a VP's context through the {@link DiskLayout} and the
 * chosen {@link IoDriver}, counted on the meters the caller names. A request's context offset
 * and length are multiples of the block size B, and its memory is aligned to the disks' device
 * block, as O_DIRECT needs; a request larger than {@link #MAX_REQUEST} is cut so that the
 * asynchronous driver can run its pieces side by side.
 *
 * <p>In memory-mapped mode there is no explicit I/O: {@link #mappedContext(int)} is the context.
 */
public final class ContextStore implements AutoCloseable {
    /** Largest single request handed to a driver. */
    public static final long MAX_REQUEST = 1L << 20;

    private final int firstVp;
    private final DiskSet disks;
    private final DiskLayout layout;
    private final IoDriver driver;
    private final long blockSize;
    private final long contextSize;

    public ContextStore(DiskSet disks, DiskLayout layout, IoDriver driver, long blockSize, long contextSize) {
        this(disks, layout, driver, blockSize, contextSize, 0);
    }

    /** A store of the contexts of VPs {@code firstVp}, {@code firstVp + 1}, … (one real processor's share). */
    public ContextStore(DiskSet disks, DiskLayout layout, IoDriver driver, long blockSize, long contextSize, int firstVp) {
        this.firstVp = firstVp;
        this.disks = disks;
        this.layout = layout;
        this.driver = driver;
        this.blockSize = blockSize;
        this.contextSize = contextSize;
    }

    public long blockSize() {
        return blockSize;
    }

    public long contextSize() {
        return contextSize;
    }

    /** Alignment of memory for requests (the device block, at least 1). */
    public long memoryAlignment() {
        return disks.deviceBlockSize();
    }

    public boolean mapped() {
        return disks.mapped();
    }

    public boolean direct() {
        return disks.direct();
    }

    public DiskLayout layout() {
        return layout;
    }

    public DiskSet disks() {
        return disks;
    }

    /** Name of the I/O driver: {@code sync}, {@code async} or {@code mmap}. */
    public String driverName() {
        return mapped() ? "mmap" : driver.name();
    }

    /** VP {@code vp}'s context as mapped memory (memory-mapped mode only). */
    public MemorySegment mappedContext(int vp) {
        if (!mapped()) {
            throw new IllegalStateException("contexts are not memory-mapped");
        }
        return disks.mapping(layout.diskOf(vp - firstVp)).asSlice(layout.contextStart(vp - firstVp), contextSize);
    }

    /** {@link DiskLayout#forEachExtent} for VP {@code vp} (an id, not an index) of this store. */
    public void forEachExtent(int vp, long offset, long length, DiskLayout.ExtentConsumer consumer) {
        layout.forEachExtent(vp - firstVp, offset, length, consumer);
    }

    /**
     * Starts moving {@code memory.byteSize()} bytes between {@code memory} and VP {@code vp}'s
     * context at {@code contextOffset}; counts the volume and each request on {@code meters}.
     */
    public IoHandle submit(IoDriver.Direction direction, int vp, long contextOffset, MemorySegment memory,
                           IoCategory category, IoMeter... meters) {
        if (mapped()) {
            throw new IllegalStateException("no explicit I/O on memory-mapped contexts");
        }
        long length = memory.byteSize();
        if (contextOffset % blockSize != 0 || length % blockSize != 0) {
            throw new IllegalArgumentException("context I/O must cover whole blocks of " + blockSize + ": offset "
                    + contextOffset + ", length " + length);
        }
        if (disks.direct() && memory.address() % disks.deviceBlockSize() != 0) {
            throw new IllegalArgumentException("memory at " + memory.address() + " is not aligned to the "
                    + disks.deviceBlockSize() + "-byte device block");
        }
        List<IoHandle> pending = new ArrayList<>(1);
        layout.forEachExtent(vp - firstVp, contextOffset, length, (disk, position, rangeOffset, extent) -> {
            for (long done = 0; done < extent; done += MAX_REQUEST) {
                long piece = Math.min(MAX_REQUEST, extent - done);
                IoHandle h = driver.submit(direction, disks.channel(disk), position + done,
                        memory.asSlice(rangeOffset + done, piece));
                for (IoMeter m : meters) {
                    if (m != null) {
                        m.count(category, piece);
                    }
                }
                if (!h.isDone()) {
                    pending.add(h);
                }
            }
        });
        return all(pending);
    }

    /** {@link #submit} and wait. */
    public void transfer(IoDriver.Direction direction, int vp, long contextOffset, MemorySegment memory,
                         IoCategory category, IoMeter... meters) {
        submit(direction, vp, contextOffset, memory, category, meters).await();
    }

    /** One handle for many: waits for all, and rethrows the first failure after every one has ended. */
    public static IoHandle all(List<IoHandle> handles) {
        if (handles.isEmpty()) {
            return IoHandle.COMPLETED;
        }
        if (handles.size() == 1) {
            return handles.getFirst();
        }
        List<IoHandle> copy = List.copyOf(handles);
        return new IoHandle() {
            @Override
            public void await() {
                RuntimeException first = null;
                for (IoHandle h : copy) {
                    try {
                        h.await();
                    } catch (RuntimeException e) {
                        if (first == null) {
                            first = e;
                        } else {
                            first.addSuppressed(e);
                        }
                    }
                }
                if (first != null) {
                    throw first;
                }
            }

            @Override
            public boolean isDone() {
                for (IoHandle h : copy) {
                    if (!h.isDone()) {
                        return false;
                    }
                }
                return true;
            }
        };
    }

    @Override
    public void close() {
        if (driver != null) {
            driver.close();
        }
        disks.close();
    }
}
