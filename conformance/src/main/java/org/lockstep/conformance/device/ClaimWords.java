package org.lockstep.conformance.device;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

/**
 * Checks that each claim made with compare-and-set has one owner: two successful compare-and-sets
 * of one word from the same expected value to another, whose calls overlapped in time, are only
 * possible on an atomic device if some other write put the expected value back in between — and
 * that write would overlap them too (a compare-and-set to another value cannot be that write). So such a pair with no other write to the word during their
 * calls means the device let two parties take one claim (a compare-and-set that is a read and a
 * later write).
 *
 * <p>No lock is held across the device call itself (that would make a broken compare-and-set
 * atomic): each call is stamped with a per-word clock on entry and on exit, and a suspect pair is
 * judged once every call that might have written between them has returned. Only words that have
 * been the target of a compare-and-set are followed.
 */
final class ClaimWords {
    private final ConcurrentSkipListMap<Long, Word> words = new ConcurrentSkipListMap<>();
    private final Consumer<String> violation;

    ClaimWords(Consumer<String> violation) {
        this.violation = violation;
    }

    /** One call that touches a followed word. */
    static final class Call {
        private final Word word;
        private final boolean compareAndSet;
        private final long expected;
        private final long value;
        private final String thread = Thread.currentThread().getName();
        private long start;
        private long end;

        private Call(Word word, boolean compareAndSet, long expected, long value) {
            this.word = word;
            this.compareAndSet = compareAndSet;
            this.expected = expected;
            this.value = value;
        }

        /** Whether this call may leave {@code v} in the word (a compare-and-set to another value cannot). */
        boolean mayWrite(long v) {
            return !compareAndSet || value == v;
        }

        /** Ends the call; {@code wrote}: whether it changed the word (a failed compare-and-set did not). */
        void returned(boolean wrote) {
            word.returned(this, wrote);
        }
    }

    private record Suspect(Call first, Call second) {
        long from() {
            return Math.min(first.start, second.start);
        }

        long to() {
            return Math.max(first.end, second.end);
        }
    }

    /** The calls on one word that a suspect pair may still need. */
    private final class Word {
        private final long offset;
        private long clock;
        private final List<Call> running = new ArrayList<>();
        private final List<Call> wrote = new ArrayList<>();
        private final List<Suspect> suspects = new ArrayList<>();

        private Word(long offset) {
            this.offset = offset;
        }

        synchronized Call entered(boolean compareAndSet, long expected, long value) {
            Call c = new Call(this, compareAndSet, expected, value);
            c.start = ++clock;
            running.add(c);
            return c;
        }

        void returned(Call c, boolean changed) {
            List<String> found = new ArrayList<>();
            synchronized (this) {
                c.end = ++clock;
                running.remove(c);
                if (changed) {
                    if (c.compareAndSet && c.expected != c.value) {
                        for (Call other : wrote) {
                            if (other.compareAndSet && other.expected == c.expected && other.expected != other.value
                                    && other.end > c.start) {
                                suspects.add(new Suspect(other, c));
                            }
                        }
                    }
                    wrote.add(c);
                }
                judge(found);
                prune();
            }
            found.forEach(violation);
        }

        /**
         * Confirms a suspect pair once no call that overlapped it and might have put the expected
         * value back is running, unless such a write overlapped it.
         */
        private void judge(List<String> found) {
            for (Iterator<Suspect> it = suspects.iterator(); it.hasNext(); ) {
                Suspect s = it.next();
                long expected = s.first().expected;
                boolean restored = wrote.stream().anyMatch(w -> w != s.first() && w != s.second() && w.mayWrite(expected)
                        && w.start < s.to() && w.end > s.from());
                if (restored) {
                    it.remove();
                } else if (running.stream().noneMatch(r -> r.mayWrite(expected) && r.start < s.to())) {
                    it.remove();
                    found.add("word at offset " + offset + ": " + s.first().thread + " and " + s.second().thread
                            + " both claimed it by compare-and-set from " + s.first().expected + " (to " + s.first().value + " and "
                            + s.second().value + ") in overlapping calls, with no other write between: two owners of one claim");
                }
            }
        }

        /** Forgets writes that no running call, later call or suspect pair can overlap. */
        private void prune() {
            long keepFrom = clock;
            for (Call r : running) {
                keepFrom = Math.min(keepFrom, r.start);
            }
            for (Suspect s : suspects) {
                keepFrom = Math.min(keepFrom, s.from());
            }
            long horizon = keepFrom;
            wrote.removeIf(w -> w.end < horizon);
        }
    }

    /** Starts a compare-and-set of the word at {@code offset}, which is followed from now on. */
    Call compareAndSet(long offset, long expected, long value) {
        return words.computeIfAbsent(offset, Word::new).entered(true, expected, value);
    }

    /**
     * Starts a write of {@code [offset, offset + length)}: the calls on the followed words it covers
     * (none, usually), each to be {@linkplain Call#returned returned} when the write is done.
     */
    List<Call> writing(long offset, long length) {
        if (length <= 0) {
            return List.of();
        }
        var covered = words.subMap(offset - (Long.BYTES - 1), true, offset + length - 1, true);
        if (covered.isEmpty()) {
            return List.of();
        }
        List<Call> calls = new ArrayList<>(covered.size());
        covered.values().forEach(w -> calls.add(w.entered(false, 0, 0)));
        return calls;
    }

    static void returned(List<Call> calls) {
        for (Call c : calls) {
            c.returned(true);
        }
    }
}
