package org.lockstep.embsp.io;

/**
 * What an I/O operation is for, as seed 003 separates the costs: swapping (coefficient S) and
 * message delivery (coefficient G), each read or written.
 */
public enum IoCategory {
    /** Reading a context back into its partition. */
    SWAP_IN,
    /** Writing a context out of its partition. */
    SWAP_OUT,
    /** Reading message data from a context on disk (pulls, read-modify-write of boundary blocks). */
    DELIVERY_READ,
    /** Writing message data into a context on disk (direct delivery, boundary blocks). */
    DELIVERY_WRITE;

    /** Whether this category is swapping (as opposed to delivery). */
    public boolean isSwap() {
        return this == SWAP_IN || this == SWAP_OUT;
    }
}
