package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * What the faults of lazily swapped-in contexts read, per superstep of the swap-in and per
 * {@link #CHUNK} of the context: the VPs run one program, so the chunks that the VPs before read
 * much of after swapping in at a superstep, the next VP swapping in there will read too. Reading
 * such a chunk ahead in one request replaces its faults, each a synchronous 4 KiB read while the VP
 * holds its partition and its core idles (the sort's binary searches over its keys after the
 * samples' Allgather: ~600 faults per VP for 8 MiB of keys).
 */
final class ReadHistory {
    /** Granularity of what is learned and read ahead. */
    static final long CHUNK = 1L << 20;
    /**
     * A chunk is read ahead once the faults read at least 1/32 of it (8 pages of 256): eight
     * synchronous 4 KiB reads wait longer than one 1 MiB read, which moreover overlaps the program.
     */
    private static final long DENSITY = 32;

    /** Per superstep: {mapped bytes, read bytes} per chunk, summed over the contexts that left. */
    private final List<long[][]> bySuperstep = new ArrayList<>();

    /** A context swapped in at {@code superstep} had {@code mapped} bytes of chunk {@code chunk} mapped, of which the faults read {@code read}. */
    synchronized void record(int superstep, long chunk, long mapped, long read) {
        while (bySuperstep.size() <= superstep) {
            bySuperstep.add(new long[2][0]);
        }
        long[][] seen = bySuperstep.get(superstep);
        if (seen[0].length <= chunk) {
            int length = (int) Math.max(chunk + 1, 2L * seen[0].length);
            seen[0] = java.util.Arrays.copyOf(seen[0], length);
            seen[1] = java.util.Arrays.copyOf(seen[1], length);
        }
        seen[0][(int) chunk] += mapped;
        seen[1][(int) chunk] += read;
    }

    /** Whether the contexts swapped in at {@code superstep} before read enough of chunk {@code chunk} that reading it ahead pays. */
    synchronized boolean readsMuchOf(int superstep, long chunk) {
        if (superstep < 0 || superstep >= bySuperstep.size()) {
            return false;
        }
        long[][] seen = bySuperstep.get(superstep);
        return chunk < seen[0].length && seen[0][(int) chunk] > 0 && seen[1][(int) chunk] * DENSITY >= seen[0][(int) chunk];
    }
}
