package org.lockstep.pcie.mailbox;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.function.Function;

import org.lockstep.api.LockstepException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The slots a {@link Sender} has published and must see released ({@link PlacedFragment}): a
 * release frees the heap block the slot pointed at, and completes a synchronous send once its
 * first fragment was read. Used under the endpoint's lock.
 */
final class AwaitedReleases {
    private final ExternalMemory device;
    private final HeapAllocator heap;
    private final ArrayList<PlacedFragment> placed = new ArrayList<>();

    AwaitedReleases(ExternalMemory device, HeapAllocator heap) {
        this.device = device;
        this.heap = heap;
    }

    void add(PlacedFragment fragment) {
        placed.add(fragment);
    }

    /** Whether any release is awaited (read without the lock as a hint, too). */
    boolean isEmpty() {
        return placed.isEmpty();
    }

    /** Frees heap blocks and completes synchronous sends whose slots the receivers have released. */
    boolean reclaim() {
        boolean any = false;
        for (Iterator<PlacedFragment> it = placed.iterator(); it.hasNext(); ) {
            PlacedFragment fragment = it.next();
            if (device.getLongAcquire(fragment.lockAddress()) >= fragment.ticket()) {
                it.remove();
                free(fragment);
                SendRequest synchronous = fragment.completes();
                if (synchronous != null) {
                    synchronous.matchedByReceiver = true;
                    if (synchronous.fullyPlaced()) {
                        synchronous.completeSend();
                    }
                }
                any = true;
            }
        }
        return any;
    }

    /** A receiver that has ended will never read these payloads: their blocks come back, their synchronous sends fail. */
    void failOnGonePeers(PeerWatch peers) {
        for (Iterator<PlacedFragment> it = placed.iterator(); it.hasNext(); ) {
            PlacedFragment fragment = it.next();
            if (!peers.isGone(fragment.dest())) {
                continue;
            }
            it.remove();
            free(fragment);
            if (fragment.completes() != null) {
                fragment.completes().failWith(peers.error(fragment.dest(), "synchronous send to"));
            }
        }
    }

    /** At close: every synchronous send still waiting for its release fails. */
    void failAll(Function<String, LockstepException> error) {
        for (PlacedFragment fragment : placed) {
            if (fragment.completes() != null) {
                fragment.completes().failWith(error.apply("synchronous send"));
            }
        }
    }

    private void free(PlacedFragment fragment) {
        if (fragment.heapOffset() != HeapAllocator.FAILED) {
            heap.release(fragment.heapOffset(), fragment.heapLength());
        }
    }
}
