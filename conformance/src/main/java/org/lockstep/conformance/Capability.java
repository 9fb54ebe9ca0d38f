package org.lockstep.conformance;

/**
 * Optional features a messaging provider may declare. Rules that need one run only when it is
 * declared; the kit also checks that what is declared is true where it can.
 */
public enum Capability {
    /** A send that has not been matched can be cancelled ({@code MPI_Cancel} of a send). */
    SEND_CANCEL,
    /** Messages survive the loss of the processes, e.g. on a persistent device (checkpoint issue). */
    PERSISTENCE,
    /** The provider can crash a rank or its device on demand, for failure rules. */
    CRASH_INJECTION,
    /**
     * The provider runs over a device chosen by job properties ({@link DeviceRouting}): the kit may
     * interpose on the device to observe ownership of the device's memory.
     */
    DEVICE_TRANSPORT,
    /**
     * Ranks' memory lives on disks beyond a memory budget (an external-memory provider such as an
     * EM-BSP simulator): the kit sizes its runs, points the disks at a directory of its own and reads
     * the provider's I/O report through the job properties of an {@link ExternalMemoryRouting}.
     */
    EXTERNAL_MEMORY,
    /**
     * The provider joins separate processes of one host into a world, started by a launcher with
     * the {@code LOCKSTEP_*} variables ({@link org.lockstep.api.LockstepProvider#runAttached}): the
     * kit starts such ranks itself for the process rules.
     */
    SEPARATE_PROCESSES,
    /**
     * The provider's ranks share memory, so that {@link org.lockstep.api.Communicator#allocateSharedWindow}
     * works on more than one rank and {@link org.lockstep.api.Window#sharedQuery} gives the others' parts.
     */
    SHARED_WINDOWS
}
