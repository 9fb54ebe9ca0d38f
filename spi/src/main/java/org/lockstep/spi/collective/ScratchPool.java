package org.lockstep.spi.collective;

import java.util.ArrayList;
import java.util.List;

/**
 * Scratch arrays of completed collectives, kept per thread for the next ones. A long collective
 * needs scratch of its message size on every call (1 MiB for a 1 MiB allreduce); a fresh array of
 * that size is a humongous allocation, zeroed, often on memory the VM has not touched yet, which
 * measured here as a good part of the call. Only arrays of at least {@link #MIN_POOLED_WORDS}
 * words are kept; small ones cost nothing to allocate.
 */
final class ScratchPool {
    static final int MIN_POOLED_WORDS = 4096 / Long.BYTES;
    private static final int MAX_ARRAYS = 8;
    private static final long MAX_POOLED_WORDS = (64L << 20) / Long.BYTES;
    private static final ThreadLocal<ScratchPool> CURRENT = ThreadLocal.withInitial(ScratchPool::new);

    private final List<long[]> free = new ArrayList<>();
    private long pooledWords;

    private ScratchPool() {
    }

    /** An array of at least {@code words} words (not zeroed if it comes from the pool). */
    static long[] take(int words) {
        if (words < MIN_POOLED_WORDS) {
            return new long[words];
        }
        ScratchPool pool = CURRENT.get();
        int best = -1;
        for (int i = 0; i < pool.free.size(); i++) {
            int length = pool.free.get(i).length;
            // not much larger than asked: a huge array should not serve a small request
            if (length >= words && length <= 2L * words && (best < 0 || length < pool.free.get(best).length)) {
                best = i;
            }
        }
        if (best < 0) {
            return new long[words];
        }
        long[] a = pool.free.remove(best);
        pool.pooledWords -= a.length;
        return a;
    }

    /** Returns an array no message or work can touch any more. */
    static void give(long[] array) {
        if (array.length < MIN_POOLED_WORDS) {
            return;
        }
        ScratchPool pool = CURRENT.get();
        if (pool.free.size() >= MAX_ARRAYS || pool.pooledWords + array.length > MAX_POOLED_WORDS) {
            return;
        }
        pool.free.add(array);
        pool.pooledWords += array.length;
    }
}
