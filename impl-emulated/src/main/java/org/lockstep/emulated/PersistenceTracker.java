package org.lockstep.emulated;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Which bytes of an emulated device would survive power loss.
 *
 * <p>Persistence is tracked per line of {@link #LINE_BYTES} bytes, the granularity at which a CPU
 * writes back and flushes (CLWB/CLFLUSHOPT): persisting one byte of a line persists the whole line.
 *
 * <pre>
 *  device     | line 0 (64 B) | line 1 (64 B) | ... | line n-1 (last may be shorter) |
 *  dirty map  | d0 | d1 | ... | d(n-1) |        one byte per line: DIRTY = written since
 *                                               its last persist, CLEAN = durable copy is current
 *  durable    | the device's content as of each line's last persist (what survives power loss) |
 * </pre>
 *
 * <p>Concurrency: a writer stores its data, then (after a release fence) marks the lines dirty; a
 * persist clears the marks, then (after a full fence) copies the lines to the durable image. So a
 * write racing with a persist of its line either reaches the durable image or leaves its line
 * dirty; it is never marked clean while missing from the durable image.
 */
sealed interface PersistenceTracker permits PersistenceTracker.Tracked, PersistenceTracker.Untracked {
    /** Bytes per persistence line. */
    int LINE_BYTES = 64;
    /** log2 of {@link #LINE_BYTES}. */
    int LINE_SHIFT = 6;

    /** Records that {@code [offset, offset + length)} was written (called after the store). */
    void written(long offset, long length);

    /** Makes {@code [offset, offset + length)} durable (whole lines). */
    void persist(long offset, long length);

    /** Whether every line of {@code [offset, offset + length)} is durable. */
    boolean isPersisted(long offset, long length);

    /** Bytes of the lines that are written but not persisted. */
    long unpersistedBytes();

    /** Reverts every unpersisted line to its durable content; returns the bytes reverted. */
    long crash();

    /**
     * Power loss with torn writes: each 8-byte word of an unpersisted line independently keeps
     * its current content or reverts to the durable one, as {@code seed} decides; what is left
     * becomes the durable content. Returns the bytes reverted.
     */
    long crashTorn(long seed);

    /** Whether this tracker tracks at all. */
    boolean tracks();

    /** A tracker with a dirty map and a durable image, both allocated in {@code arena}. */
    static PersistenceTracker tracking(Arena arena, MemorySegment device) {
        return new Tracked(arena, device);
    }

    /** A tracker that records nothing: persist only orders writes. */
    static PersistenceTracker untracked() {
        return Untracked.INSTANCE;
    }

    /** The tracking implementation. */
    final class Tracked implements PersistenceTracker {
        private static final byte CLEAN = 0;
        private static final byte DIRTY = 1;

        private final MemorySegment device;
        private final MemorySegment dirtyMap;
        private final MemorySegment durable;
        private final long capacity;
        private final long lines;
        /** Persists run concurrently; a crash excludes them, so that none is half applied to the durable image. */
        private final java.util.concurrent.locks.StampedLock crashLock = new java.util.concurrent.locks.StampedLock();

        private Tracked(Arena arena, MemorySegment device) {
            this.device = device;
            this.capacity = device.byteSize();
            this.lines = (capacity + LINE_BYTES - 1) >>> LINE_SHIFT;
            this.dirtyMap = arena.allocate(lines, LINE_BYTES);
            this.durable = arena.allocate(capacity, LINE_BYTES);
        }

        @Override
        public void written(long offset, long length) {
            if (length == 0) {
                return;
            }
            long first = offset >>> LINE_SHIFT;
            long last = (offset + length - 1) >>> LINE_SHIFT;
            VarHandle.releaseFence();
            if (first == last) {
                dirtyMap.set(ValueLayout.JAVA_BYTE, first, DIRTY);
            } else {
                dirtyMap.asSlice(first, last - first + 1).fill(DIRTY);
            }
        }

        @Override
        public void persist(long offset, long length) {
            VarHandle.fullFence();
            if (length == 0) {
                return;
            }
            long stamp = crashLock.readLock();
            try {
                persistLines(offset, length);
            } finally {
                crashLock.unlockRead(stamp);
            }
        }

        private void persistLines(long offset, long length) {
            long line = offset >>> LINE_SHIFT;
            long end = ((offset + length - 1) >>> LINE_SHIFT) + 1;
            while (line < end) {
                long runStart = nextDirty(line, end);
                if (runStart == end) {
                    return;
                }
                long runEnd = nextClean(runStart, end);
                dirtyMap.asSlice(runStart, runEnd - runStart).fill(CLEAN);
                VarHandle.fullFence();
                copyLines(device, durable, runStart, runEnd);
                line = runEnd;
            }
        }

        @Override
        public boolean isPersisted(long offset, long length) {
            if (length == 0) {
                return true;
            }
            long first = offset >>> LINE_SHIFT;
            long end = ((offset + length - 1) >>> LINE_SHIFT) + 1;
            return nextDirty(first, end) == end;
        }

        @Override
        public long unpersistedBytes() {
            long bytes = 0;
            long line = 0;
            while (line < lines) {
                long runStart = nextDirty(line, lines);
                if (runStart == lines) {
                    break;
                }
                long runEnd = nextClean(runStart, lines);
                bytes += lineBytes(runStart, runEnd);
                line = runEnd;
            }
            return bytes;
        }

        @Override
        public long crash() {
            long stamp = crashLock.writeLock();
            try {
                return revertAll();
            } finally {
                crashLock.unlockWrite(stamp);
            }
        }

        private long revertAll() {
            VarHandle.fullFence();
            long reverted = 0;
            long line = 0;
            while (line < lines) {
                long runStart = nextDirty(line, lines);
                if (runStart == lines) {
                    break;
                }
                long runEnd = nextClean(runStart, lines);
                copyLines(durable, device, runStart, runEnd);
                dirtyMap.asSlice(runStart, runEnd - runStart).fill(CLEAN);
                reverted += lineBytes(runStart, runEnd);
                line = runEnd;
            }
            VarHandle.fullFence();
            return reverted;
        }

        @Override
        public long crashTorn(long seed) {
            long stamp = crashLock.writeLock();
            try {
                return revertTorn(seed);
            } finally {
                crashLock.unlockWrite(stamp);
            }
        }

        private long revertTorn(long seed) {
            VarHandle.fullFence();
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
            long reverted = 0;
            long line = 0;
            while (line < lines) {
                long runStart = nextDirty(line, lines);
                if (runStart == lines) {
                    break;
                }
                long runEnd = nextClean(runStart, lines);
                long end = Math.min(runEnd << LINE_SHIFT, capacity);
                for (long at = runStart << LINE_SHIFT; at < end; at += Long.BYTES) {
                    long bytes = Math.min(Long.BYTES, end - at);
                    if (random.nextBoolean()) {
                        MemorySegment.copy(durable, at, device, at, bytes);
                        reverted += bytes;
                    }
                }
                copyLines(device, durable, runStart, runEnd);
                dirtyMap.asSlice(runStart, runEnd - runStart).fill(CLEAN);
                line = runEnd;
            }
            VarHandle.fullFence();
            return reverted;
        }

        @Override
        public boolean tracks() {
            return true;
        }

        private long nextDirty(long from, long end) {
            long line = from;
            while (line < end && dirtyMap.get(ValueLayout.JAVA_BYTE, line) == CLEAN) {
                line++;
            }
            return line;
        }

        private long nextClean(long from, long end) {
            long line = from;
            while (line < end && dirtyMap.get(ValueLayout.JAVA_BYTE, line) != CLEAN) {
                line++;
            }
            return line;
        }

        /** Bytes of lines {@code [firstLine, endLine)}, the last line clipped at the capacity. */
        private long lineBytes(long firstLine, long endLine) {
            return Math.min(endLine << LINE_SHIFT, capacity) - (firstLine << LINE_SHIFT);
        }

        private void copyLines(MemorySegment from, MemorySegment to, long firstLine, long endLine) {
            long start = firstLine << LINE_SHIFT;
            MemorySegment.copy(from, start, to, start, lineBytes(firstLine, endLine));
        }
    }

    /** The tracker of {@code persistence=off}. */
    final class Untracked implements PersistenceTracker {
        private static final Untracked INSTANCE = new Untracked();

        private Untracked() {
        }

        @Override
        public void written(long offset, long length) {
            // nothing is tracked
        }

        @Override
        public void persist(long offset, long length) {
            VarHandle.fullFence();
        }

        @Override
        public boolean isPersisted(long offset, long length) {
            throw new UnsupportedOperationException("persistence is not tracked");
        }

        @Override
        public long unpersistedBytes() {
            throw new UnsupportedOperationException("persistence is not tracked");
        }

        @Override
        public long crash() {
            throw new UnsupportedOperationException("persistence is not tracked");
        }

        @Override
        public long crashTorn(long seed) {
            throw new UnsupportedOperationException("persistence is not tracked");
        }

        @Override
        public boolean tracks() {
            return false;
        }
    }
}
