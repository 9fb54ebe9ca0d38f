package org.lockstep.pcie.layout;

/**
 * The process that formats a device, as the superblock names it
 * ({@link SuperblockDescriptor#FORMATTER_PID_OFFSET} and the two words after the owner): its id,
 * its start time and its host, so that a rank waiting for the format can tell a formatter that
 * died half way from a slow one.
 *
 * @param pid         process id; 0 when unknown
 * @param startMillis the process's start, in milliseconds since the epoch
 * @param host        identity of its host and process-id namespace; 0 when unknown
 */
public record FormatterProcess(long pid, long startMillis, long host) {
    /** A formatter that does not say who it is (threads of one process, tests): never taken over. */
    public static final FormatterProcess UNKNOWN = new FormatterProcess(0, 0, 0);
}
