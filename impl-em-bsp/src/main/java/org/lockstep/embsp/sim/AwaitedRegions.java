package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The parts of one context that a collective call in progress will overwrite entirely: its
 * receive regions that no message has reached yet. Their bytes in memory are meaningless until the
 * messages arrive (direct delivery writes them into the context, on disk while it is swapped out),
 * so a swap-out need not write the blocks that lie wholly inside them. A delivery removes what it
 * wrote, whatever the residency: what is left is always a part of some message still to come.
 * Disjoint {start, end} byte ranges, guarded by this object (senders deliver concurrently).
 */
final class AwaitedRegions {
    private final TreeMap<Long, Long> ranges = new TreeMap<>();

    /** The receiver records {@code [from, to)} as awaited. */
    synchronized void await(long from, long to) {
        if (to <= from) {
            return;
        }
        Map.Entry<Long, Long> before = ranges.floorEntry(from);
        if (before != null && before.getValue() >= from) {
            from = before.getKey();
            to = Math.max(to, before.getValue());
        }
        for (Map.Entry<Long, Long> next = ranges.ceilingEntry(from); next != null && next.getKey() <= to; next = ranges.ceilingEntry(from)) {
            to = Math.max(to, next.getValue());
            ranges.remove(next.getKey());
        }
        ranges.put(from, to);
    }

    /** A message reached {@code [from, to)}: those bytes are data now. */
    synchronized void arrived(long from, long to) {
        if (ranges.isEmpty() || to <= from) {
            return;
        }
        Map.Entry<Long, Long> first = ranges.floorEntry(from);
        long scan = first != null && first.getValue() > from ? first.getKey() : from;
        List<long[]> kept = new ArrayList<>();
        for (Map.Entry<Long, Long> e = ranges.ceilingEntry(scan); e != null && e.getKey() < to; e = ranges.ceilingEntry(scan)) {
            ranges.remove(e.getKey());
            if (e.getKey() < from) {
                kept.add(new long[] {e.getKey(), from});
            }
            if (e.getValue() > to) {
                kept.add(new long[] {to, e.getValue()});
            }
            scan = e.getValue();
        }
        for (long[] k : kept) {
            ranges.put(k[0], k[1]);
        }
    }

    /** The call is over: nothing is awaited. */
    synchronized void clear() {
        ranges.clear();
    }

    /** The whole {@code block}-sized blocks inside the awaited ranges, sorted. */
    synchronized List<long[]> wholeBlocks(long block) {
        List<long[]> blocks = new ArrayList<>();
        for (Map.Entry<Long, Long> e : ranges.entrySet()) {
            long start = -Math.floorDiv(-e.getKey(), block) * block;
            long end = Math.floorDiv(e.getValue(), block) * block;
            if (end > start) {
                blocks.add(new long[] {start, end});
            }
        }
        return blocks;
    }

    /** The parts of sorted disjoint {@code ranges} outside sorted disjoint {@code removed}. */
    static List<long[]> subtract(List<long[]> ranges, List<long[]> removed) {
        if (removed.isEmpty()) {
            return ranges;
        }
        List<long[]> left = new ArrayList<>();
        int j = 0;
        for (long[] r : ranges) {
            long start = r[0];
            while (j < removed.size() && removed.get(j)[1] <= start) {
                j++;
            }
            int k = j;
            while (k < removed.size() && removed.get(k)[0] < r[1]) {
                if (removed.get(k)[0] > start) {
                    left.add(new long[] {start, removed.get(k)[0]});
                }
                start = Math.max(start, removed.get(k)[1]);
                k++;
            }
            if (start < r[1]) {
                left.add(new long[] {start, r[1]});
            }
        }
        return left;
    }
}
