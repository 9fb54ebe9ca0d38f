/**
 * The executable specification of Lockstep: the rule catalog, scenario generators, reference
 * models and history checkers, the multi-rank runner, and the abstract verification classes a
 * provider subclasses. The property-based testing library it uses stays inside
 * {@code org.lockstep.conformance.internal}.
 */
module org.lockstep.conformance {
    requires transitive org.lockstep.spi;
    requires transitive org.junit.jupiter.api;
    requires quicktheories;

    exports org.lockstep.conformance;
    exports org.lockstep.conformance.device;
    exports org.lockstep.conformance.oracle;
    exports org.lockstep.conformance.run;
    exports org.lockstep.conformance.scenario;
    exports org.lockstep.conformance.verification;

    provides org.lockstep.spi.device.DeviceProvider with org.lockstep.conformance.device.InterposingDeviceProvider;
}
