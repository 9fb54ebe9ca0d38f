package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.TreeSet;

/**
 * Which messages of each channel into this rank its program has consumed: a prefix of sequence
 * numbers, plus those consumed out of order above it (as tags allow). A checkpoint stores them, a
 * restart reads them back, and the receivers' release cursors are the prefixes. Part of the
 * {@link MessageLog}; used under the endpoint's lock.
 */
final class ConsumedSets {
    private final long[] prefix;
    private final TreeSet<Long>[] above;

    @SuppressWarnings("unchecked")
    ConsumedSets(int size) {
        prefix = new long[size];
        above = (TreeSet<Long>[]) new TreeSet<?>[size];
        for (int i = 0; i < size; i++) {
            above[i] = new TreeSet<>();
        }
    }

    /** The program consumed the message (all its fragments) with sequence numbers {@code first..last} from {@code source}. */
    void consumed(int source, long first, long last) {
        TreeSet<Long> ahead = above[source];
        if (first == prefix[source] + 1 && ahead.isEmpty()) {
            prefix[source] = last; // in order, nothing consumed ahead: the common case
            return;
        }
        for (long seq = first; seq <= last; seq++) {
            if (seq == prefix[source] + 1) {
                prefix[source] = seq;
                while (!ahead.isEmpty() && ahead.first() == prefix[source] + 1) {
                    prefix[source] = ahead.pollFirst();
                }
            } else if (seq > prefix[source]) {
                ahead.add(seq);
            }
        }
    }

    /** The first sequence number at or after {@code next} from {@code source} that has not been consumed. */
    long skipConsumed(int source, long next) {
        long n = Math.max(next, prefix[source] + 1);
        TreeSet<Long> ahead = above[source];
        while (!ahead.isEmpty() && ahead.contains(n)) {
            n++;
        }
        return n;
    }

    /** Whether the message with {@code sequence} from {@code source} has been consumed (a duplicate). */
    boolean isConsumed(int source, long sequence) {
        return sequence <= prefix[source] || above[source].contains(sequence);
    }

    /** Every sequence number up to this one from {@code source} has been consumed. */
    long prefix(int source) {
        return prefix[source];
    }

    /** Words {@link #write} takes: per source the prefix, the count above it, and each one above. */
    long words() {
        long words = 2L * prefix.length;
        for (TreeSet<Long> ahead : above) {
            words += ahead.size();
        }
        return words;
    }

    /** Writes the sets into a checkpoint body at {@code at}; returns the offset after them. */
    long write(MemorySegment body, long at) {
        for (int s = 0; s < prefix.length; s++) {
            body.set(ValueLayout.JAVA_LONG, at, prefix[s]);
            body.set(ValueLayout.JAVA_LONG, at + 8, above[s].size());
            at += 16;
            for (long seq : above[s]) {
                body.set(ValueLayout.JAVA_LONG, at, seq);
                at += 8;
            }
        }
        return at;
    }

    /** Reads the sets from a checkpoint body at {@code at}; returns the offset after them. */
    long read(MemorySegment body, long at) {
        for (int s = 0; s < prefix.length; s++) {
            prefix[s] = body.get(ValueLayout.JAVA_LONG, at);
            long k = body.get(ValueLayout.JAVA_LONG, at + 8);
            at += 16;
            for (long i = 0; i < k; i++, at += 8) {
                above[s].add(body.get(ValueLayout.JAVA_LONG, at));
            }
        }
        return at;
    }

    @Override
    public String toString() {
        return Arrays.toString(prefix);
    }
}
