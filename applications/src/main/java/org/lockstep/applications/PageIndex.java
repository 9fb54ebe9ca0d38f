package org.lockstep.applications;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The first key of every 4 KiB page of a sorted key segment, kept in a small segment of its own:
 * a lower bound searches the index, then the one page the bound falls in. Under EM-BSP a context
 * swapped in lazily is read as it is touched, so a search that way reads one page of the keys where
 * a plain binary search reads about log₂(keys ÷ 512) scattered pages (the sample sort's splitters
 * after the samples' Allgather: ~600 pages a rank, which the simulator's learned read-ahead then
 * turned into reading every key).
 */
final class PageIndex {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final long PAGE = 4096;
    private static final long KEYS_PER_PAGE = PAGE / Long.BYTES;

    private final MemorySegment keys;
    private final long count;
    private final MemorySegment firsts;
    /** Keys before the first page boundary inside {@link #keys}: entry j is key {@code lead + j·512}. */
    private final long lead;
    private final long entries;

    /** Longs an index of {@code count} keys needs, wherever the keys start. */
    static long entries(long count) {
        return count / KEYS_PER_PAGE + 1;
    }

    /** Indexes the {@code count} sorted keys of {@code keys} into {@code firsts} (at least {@link #entries} longs). */
    PageIndex(MemorySegment keys, long count, MemorySegment firsts) {
        this.keys = keys;
        this.count = count;
        this.firsts = firsts;
        this.lead = Math.min(count, Math.floorMod(-keys.address(), PAGE) / Long.BYTES);
        this.entries = (count - lead + KEYS_PER_PAGE - 1) / KEYS_PER_PAGE;
        if (firsts.byteSize() < entries * Long.BYTES) {
            throw new IllegalArgumentException("page index of " + count + " keys needs " + entries + " longs, got "
                    + firsts.byteSize() / Long.BYTES);
        }
        for (long j = 0; j < entries; j++) {
            firsts.setAtIndex(LONG, j, keys.getAtIndex(LONG, lead + j * KEYS_PER_PAGE));
        }
    }

    /** As {@link Keys#lowerBound(MemorySegment, long, long)} over the indexed keys. */
    long lowerBound(long bound) {
        long j = Keys.lowerBound(firsts, entries, bound);
        // keys up to entry j − 1's are below bound, entry j's is not
        long from = j == 0 ? 0 : lead + (j - 1) * KEYS_PER_PAGE + 1;
        long to = j == entries ? count : lead + j * KEYS_PER_PAGE;
        return Keys.lowerBound(keys, from, to, bound);
    }
}
