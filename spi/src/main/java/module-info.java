/**
 * What a Lockstep provider implements and builds on: the device (external-memory) contract and
 * the messaging machinery every provider reuses (matching engine, request bookkeeping, argument
 * checks, the thread-world runner).
 */
module org.lockstep.spi {
    requires transitive org.lockstep.api;
    requires transitive jdk.jfr;

    exports org.lockstep.spi.device;
    exports org.lockstep.spi.messaging;
    exports org.lockstep.spi.collective;
    exports org.lockstep.spi.events;
    exports org.lockstep.spi.window;

    uses org.lockstep.spi.device.DeviceProvider;
}
