/**
 * The JUnit Jupiter verification classes of the Lockstep conformance kit, in the style of the
 * Reactive Streams TCK: a provider's tests subclass {@code MessagingProviderVerification} or
 * {@code DeviceVerification}, and every rule of the catalog becomes a test method.
 */
module org.lockstep.conformance.verification {
    requires transitive org.lockstep.conformance;
    requires transitive org.junit.jupiter.api;

    exports org.lockstep.conformance.verification;
}
