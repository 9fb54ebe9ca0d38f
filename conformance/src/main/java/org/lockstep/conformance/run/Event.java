package org.lockstep.conformance.run;

/**
 * One operation a rank performed, as the runner recorded it.
 *
 * @param rank        the rank
 * @param sequence    its number among the rank's operations
 * @param operation   the call, e.g. {@code irecv}
 * @param detail      its arguments
 * @param startNanos  {@link System#nanoTime()} before the call
 * @param endNanos    {@link System#nanoTime()} when it was seen complete
 * @param outcome     status or error
 */
public record Event(int rank, long sequence, String operation, String detail, long startNanos, long endNanos, String outcome) {
    @Override
    public String toString() {
        return "#" + sequence + " " + operation + "(" + detail + ") -> " + outcome;
    }
}
