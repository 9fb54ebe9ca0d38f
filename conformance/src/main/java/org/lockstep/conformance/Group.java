package org.lockstep.conformance;

/**
 * The rule groups, one per area of the contract. Groups for areas whose issues have not landed
 * yet exist so that their rules join the same catalog, report and verification classes.
 */
public enum Group {
    PT2PT("Point-to-point", Subject.MESSAGING),
    MBX("Mailbox lock semantics", Subject.MESSAGING),
    LARGE("Indirection (large messages)", Subject.MESSAGING),
    DEV("Device contract", Subject.DEVICE),
    COMM("Communicators", Subject.MESSAGING),
    COLL("Collectives", Subject.MESSAGING),
    TYPE("Derived datatypes", Subject.MESSAGING),
    PROC("Separate processes", Subject.MESSAGING),
    CKPT("Checkpoint and restart", Subject.MESSAGING),
    EMBSP("EM-BSP simulation", Subject.MESSAGING),
    TOPO("Process topologies", Subject.MESSAGING),
    RMA("One-sided communication", Subject.MESSAGING);

    /** What a group's rules run against. */
    public enum Subject {
        /** A {@link org.lockstep.api.LockstepProvider}: worlds of ranks. */
        MESSAGING,
        /** An {@link org.lockstep.spi.device.ExternalMemory}: one device. */
        DEVICE
    }

    private final String title;
    private final Subject subject;

    Group(String title, Subject subject) {
        this.title = title;
        this.subject = subject;
    }

    public String title() {
        return title;
    }

    public Subject subject() {
        return subject;
    }
}
