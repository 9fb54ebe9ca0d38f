package org.lockstep.api;

/**
 * A partitioned send or receive (MPI 4.0 §4, {@code MPI_Psend_init}/{@code MPI_Precv_init}): a
 * persistent operation whose buffer is {@code partitions} parts of equal size. After each
 * {@link #start()}, the sender marks parts ready in any order ({@link #pready}) and each is sent as
 * soon as it and every part before it is ready; the receiver may use a part once
 * {@link #parrived} says it has arrived.
 */
public interface PartitionedRequest extends PersistentRequest {
    /** Number of parts. */
    int partitions();

    /** The sender's part {@code partition} may be sent ({@code MPI_Pready}); each part once per start. */
    void pready(int partition);

    /** Parts {@code low..high}, both included ({@code MPI_Pready_range}). */
    default void preadyRange(int low, int high) {
        for (int p = low; p <= high; p++) {
            pready(p);
        }
    }

    /** The parts listed ({@code MPI_Pready_list}). */
    default void preadyList(int... partitionList) {
        for (int p : partitionList) {
            pready(p);
        }
    }

    /** Whether the receiver's part {@code partition} has arrived ({@code MPI_Parrived}); makes progress. */
    boolean parrived(int partition);
}
