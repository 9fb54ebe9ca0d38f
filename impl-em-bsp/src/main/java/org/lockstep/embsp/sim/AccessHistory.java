package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What lazily swapped-in contexts read and wrote of their mapped blocks, per superstep of the
 * swap-in and per {@link #CHUNK} of the context: the VPs run one program, so what the VPs before
 * did with a chunk after swapping in at a superstep, the next VP swapping in there will do too.
 *
 * <p>A chunk they read much of is read ahead in one request, which replaces its faults, each a
 * synchronous 4 KiB read while the VP holds its partition and its core idles (the sort's binary
 * searches over its keys after the samples' Allgather: ~600 faults per VP for 8 MiB of keys). A
 * chunk they wrote most of is read eagerly, by the I/O driver into plain memory, instead of being
 * mapped: mapped, every page of it costs a read fault and a copy-on-write fault and copy (the sort's
 * radix sort of the keys it received: 1.1 M faults and ~15 s of system time at 4 GiB), and written
 * pages are written back either way.
 */
final class AccessHistory {
    /** Granularity of what is learned and read ahead. */
    static final long CHUNK = 1L << 20;
    /**
     * A chunk is read ahead once the faults read at least 1/32 of it (8 pages of 256): eight
     * synchronous 4 KiB reads wait longer than one 1 MiB read, which moreover overlaps the program.
     */
    private static final long READ_DENSITY = 32;
    /** A chunk is read eagerly once at least half of what was mapped of it was written. */
    private static final long WRITE_DENSITY = 2;

    private static final int MAPPED = 0;
    private static final int READ = 1;
    private static final int WRITE_MAPPED = 2;
    private static final int WRITTEN = 3;

    /** Per superstep: {mapped, read, mapped when writes were counted, written} bytes per chunk, summed over the contexts. */
    private final List<long[][]> bySuperstep = new ArrayList<>();

    /** A context swapped in at {@code superstep} had {@code mapped} bytes of chunk {@code chunk} mapped, of which the faults read {@code read}. */
    synchronized void recordReads(int superstep, long chunk, long mapped, long read) {
        add(superstep, chunk, MAPPED, READ, mapped, read);
    }

    /** A context swapped in at {@code superstep} had {@code mapped} bytes of chunk {@code chunk} mapped, of which it wrote {@code written}. */
    synchronized void recordWrites(int superstep, long chunk, long mapped, long written) {
        add(superstep, chunk, WRITE_MAPPED, WRITTEN, mapped, written);
    }

    /** Whether the contexts swapped in at {@code superstep} before read enough of chunk {@code chunk} that reading it ahead pays. */
    synchronized boolean readsMuchOf(int superstep, long chunk) {
        return dense(superstep, chunk, MAPPED, READ, READ_DENSITY);
    }

    /** Whether the contexts swapped in at {@code superstep} before wrote most of chunk {@code chunk}: it is read eagerly. */
    synchronized boolean writesMuchOf(int superstep, long chunk) {
        return dense(superstep, chunk, WRITE_MAPPED, WRITTEN, WRITE_DENSITY);
    }

    private void add(int superstep, long chunk, int whole, int part, long wholeBytes, long partBytes) {
        if (superstep < 0) {
            return;
        }
        while (bySuperstep.size() <= superstep) {
            bySuperstep.add(new long[4][0]);
        }
        long[][] seen = bySuperstep.get(superstep);
        if (seen[0].length <= chunk) {
            int length = (int) Math.max(chunk + 1, 2L * seen[0].length);
            for (int i = 0; i < seen.length; i++) {
                seen[i] = Arrays.copyOf(seen[i], length);
            }
        }
        seen[whole][(int) chunk] += wholeBytes;
        seen[part][(int) chunk] += partBytes;
    }

    private boolean dense(int superstep, long chunk, int whole, int part, long density) {
        if (superstep < 0 || superstep >= bySuperstep.size()) {
            return false;
        }
        long[][] seen = bySuperstep.get(superstep);
        return chunk < seen[0].length && seen[whole][(int) chunk] > 0 && seen[part][(int) chunk] * density >= seen[whole][(int) chunk];
    }
}
