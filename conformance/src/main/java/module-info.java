/**
 * The executable specification of Lockstep: the rule catalog, scenario generators, reference
 * models and history checkers, and the multi-rank runner. The property-based testing library it
 * uses stays inside {@code org.lockstep.conformance.internal}. The JUnit verification classes a
 * provider subclasses are in {@code org.lockstep.conformance.verification}, so that JUnit stays out
 * of everything that runs the kit.
 */
module org.lockstep.conformance {
    requires transitive org.lockstep.spi;
    requires org.quicktheories;

    exports org.lockstep.conformance;
    exports org.lockstep.conformance.device;
    exports org.lockstep.conformance.oracle;
    exports org.lockstep.conformance.run;
    exports org.lockstep.conformance.scenario;

    provides org.lockstep.spi.device.DeviceProvider with org.lockstep.conformance.device.InterposingDeviceProvider;
}
