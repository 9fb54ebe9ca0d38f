package org.lockstep.embsp.sim;

/** Where the truth of a context is. */
public enum Residency {
    /** In its partition; the disk copy may be stale. */
    RESIDENT,
    /** On disk only; the partition belongs to someone else or nobody. */
    ON_DISK,
    /** On disk; the partition holds a read-only copy of some blocks (a sender's message sources). */
    LOANED
}
