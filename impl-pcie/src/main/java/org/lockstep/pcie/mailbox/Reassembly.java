package org.lockstep.pcie.mailbox;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The bytes of a message that arrives in fragments: how many have arrived, and the local staging
 * memory that holds later fragments until a receive matches the first. Staging lets the sender —
 * and later messages on the channel — go on without waiting for a receive that may come much
 * later. Which receive the fragments go to once matched is the {@link ReceiveChannel}'s to know.
 */
final class Reassembly {
    /** The whole message's bytes, tag and source, and the first fragment's bytes, as the first fragment gave them. */
    final long messageLength;
    final int tag;
    final int source;
    final long firstLength;
    /** Bytes of the message seen so far (first fragment included). */
    long arrived;
    /** Bytes of the message already copied into {@link #staging} (after the first fragment). */
    private MemorySegment staging;
    private Arena stagingArena;
    /** Sequence number of the last fragment seen (the message's fragments have consecutive numbers). */
    long lastSequence;
    /** The sender ended before the last fragment: a receive that matches fails. */
    boolean broken;
    /** Where the sender writes the rest of the message after a single-copy ACCEPT, or -1. */
    long directTarget = -1;

    Reassembly(long messageLength, int tag, int source, long firstLength, long firstSequence) {
        this.messageLength = messageLength;
        this.tag = tag;
        this.source = source;
        this.firstLength = firstLength;
        this.arrived = firstLength;
        this.lastSequence = firstSequence;
    }

    /** Counts a later fragment of {@code length} bytes in; returns its offset within the message. */
    long add(long length, long sequence) {
        long offset = arrived;
        arrived += length;
        lastSequence = sequence;
        return offset;
    }

    boolean isComplete() {
        return arrived == messageLength;
    }

    /** Bytes after the first fragment that have arrived (staged, unless a receive had matched). */
    long afterFirst() {
        return arrived - firstLength;
    }

    /** Local memory for the bytes after the first fragment, allocated when first needed. */
    MemorySegment staging() {
        if (staging == null) {
            long bytes = messageLength - firstLength;
            Arena arena = Arena.ofShared();
            try {
                staging = arena.allocate(bytes, 64);
            } catch (OutOfMemoryError | IllegalArgumentException e) {
                arena.close();
                throw new LockstepException(ErrorClass.NO_MEM, "cannot hold an unexpected message of " + messageLength
                        + " bytes from rank " + source + " in memory: " + e.getMessage()
                        + "; post the receive earlier or raise -XX:MaxDirectMemorySize");
            }
            stagingArena = arena;
        }
        return staging;
    }

    void releaseStaging() {
        if (stagingArena != null) {
            stagingArena.close();
            stagingArena = null;
            staging = null;
        }
    }
}
