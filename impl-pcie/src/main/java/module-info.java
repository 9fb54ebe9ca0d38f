/**
 * The mailbox transport of seed 001 over any device of the SPI, and the hardware device
 * provider that maps device paths. A provider module: it exports nothing, but for its ring and
 * layout to the white-box JMH benchmarks of the bench module.
 */
// bench is not on this module's path when it compiles: its qualified exports name a module javac cannot see
@SuppressWarnings("module")
module org.lockstep.pcie {
    requires org.lockstep.spi;
    // thread CPU time for CheckpointBenchmark (steadier than wall time on a shared machine)
    requires java.management;
    // Flight Recorder events of checkpoint commits and restarts
    requires jdk.jfr;

    exports org.lockstep.pcie.layout to org.lockstep.bench;
    exports org.lockstep.pcie.ring to org.lockstep.bench;

    provides org.lockstep.api.LockstepProvider with org.lockstep.pcie.MailboxProvider;
    provides org.lockstep.spi.device.DeviceProvider with org.lockstep.pcie.mapped.MappedDeviceProvider;
}
