/**
 * The PEMS2 EM-BSP simulator (seed 003) as a Lockstep provider named {@code embsp}: v virtual
 * processors on k cores, whose contexts of μ bytes live on D disks and are swapped into k memory
 * partitions, so that unmodified programs run on data far larger than memory. A provider module:
 * it exports nothing.
 */
module org.lockstep.embsp {
    requires org.lockstep.spi;
    // O_DIRECT (com.sun.nio.file.ExtendedOpenOption, looked up reflectively): without this, a
    // launch with -m resolves no jdk.unsupported and every disk silently falls back to buffered I/O.
    requires jdk.unsupported;
    // Flight Recorder events of supersteps
    requires jdk.jfr;

    provides org.lockstep.api.LockstepProvider with org.lockstep.embsp.EmBspProvider;
}
