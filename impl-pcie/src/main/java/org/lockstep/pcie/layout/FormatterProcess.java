package org.lockstep.pcie.layout;

/**
 * The process that formats a device, as the superblock names it: its id and start time packed in
 * one word ({@link SuperblockDescriptor#FORMATTER_OFFSET}, so that a single compare-and-set
 * names both and no reader ever pairs one formatter's id with another's start time) and its host
 * ({@link SuperblockDescriptor#FORMATTER_HOST_OFFSET}). A rank waiting for the format can then
 * tell a formatter that died half way from a slow one.
 *
 * @param pid         process id; 0 when unknown
 * @param startMillis the process's start, in milliseconds since the epoch; 0 when unknown
 * @param host        identity of its host and process-id namespace; 0 when unknown
 */
public record FormatterProcess(long pid, long startMillis, long host) {
    /** A formatter that does not say who it is (threads of one process, tests): taken over only after a lease. */
    public static final FormatterProcess UNKNOWN = new FormatterProcess(0, 0, 0);

    /** Low bits of the start time kept in the word: milliseconds modulo 2^41, about 69 years. */
    private static final int START_BITS = 41;
    private static final long START_MASK = (1L << START_BITS) - 1;
    /** Process ids above the start bits: 22 bits, Linux's largest pid_max. */
    private static final long MAX_PID = (1L << (Long.SIZE - 1 - START_BITS)) - 1;
    /** Start times are decoded as the latest time with those low bits before now plus this (clocks of two readers differ a little). */
    private static final long DECODE_SLACK_MILLIS = 86_400_000L;

    /** The formatter word: process id above the start time's low bits; 0 for a process that cannot be named in it. */
    public long word() {
        if (pid <= 0 || pid > MAX_PID) {
            return 0;
        }
        return pid << START_BITS | (startMillis & START_MASK);
    }

    /** The process a formatter word names, on {@code host}; a start time whose low bits are all 0 reads as unknown. */
    public static FormatterProcess of(long word, long host) {
        if (word == 0) {
            return new FormatterProcess(0, 0, host);
        }
        long low = word & START_MASK;
        long start = 0;
        if (low != 0) {
            long reference = System.currentTimeMillis() + DECODE_SLACK_MILLIS;
            start = reference - ((reference - low) & START_MASK);
        }
        return new FormatterProcess(word >>> START_BITS, start, host);
    }
}
