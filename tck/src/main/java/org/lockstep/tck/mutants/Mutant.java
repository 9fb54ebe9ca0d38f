package org.lockstep.tck.mutants;

import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.lockstep.api.Communicator;
import org.lockstep.conformance.Capabilities;
import org.lockstep.spi.device.ExternalMemory;

/**
 * A deliberately broken version of a real provider or device, and the rules that must catch it.
 *
 * @param id        short name, e.g. {@code DROP_MESSAGE}
 * @param breakage  what is broken, in one sentence
 * @param where     where the breakage sits
 * @param simulated whether it imitates the symptom of a bug inside the transport rather than
 *                  breaking the transport itself (see {@link #breakage})
 * @param killers   ids of the rules that must fail against it
 * @param communicator for a {@link Where#COMMUNICATOR} mutant: the broken communicator, from the real one and the declarations
 * @param device    for a {@link Where#DEVICE_UNDER_PROVIDER} or {@link Where#DEVICE} mutant: the broken device
 * @param fault     for a {@link Where#PROVIDER_FAULT} mutant: the job property that switches the breakage on
 */
public record Mutant(String id, String breakage, Where where, boolean simulated, List<String> killers,
                     BiFunction<Communicator, Capabilities, Communicator> communicator,
                     BiFunction<ExternalMemory, Capabilities, ExternalMemory> device,
                     ProviderFault fault) {
    /** Where a breakage sits. */
    public enum Where {
        /** In the communicators (and their requests) the provider hands its ranks. */
        COMMUNICATOR,
        /** In the device the provider runs over (through the conformance kit's interposer). */
        DEVICE_UNDER_PROVIDER,
        /** In a device checked by the device rules. */
        DEVICE,
        /** Inside one provider's own code, switched on by a fault-injection job property that provider offers its self-test. */
        PROVIDER_FAULT
    }

    /**
     * A breakage a provider injects into itself when a job property asks for it.
     *
     * @param provider the provider that knows the property (the mutant does not apply to others)
     * @param property the job property
     * @param value    its value, naming the breakage
     */
    public record ProviderFault(String provider, String property, String value) {
        public ProviderFault {
            Objects.requireNonNull(provider, "provider");
            Objects.requireNonNull(property, "property");
            Objects.requireNonNull(value, "value");
        }
    }

    public Mutant {
        Objects.requireNonNull(id, "id");
        killers = List.copyOf(killers);
        if (killers.isEmpty()) {
            throw new IllegalArgumentException("mutant " + id + " names no rule that must catch it");
        }
    }

    static Mutant communicator(String id, String breakage, boolean simulated, List<String> killers,
                               BiFunction<Communicator, Capabilities, Object> make) {
        return new Mutant(id, breakage, Where.COMMUNICATOR, simulated, killers,
                (real, caps) -> Forwarders.forward(Communicator.class, real, make.apply(real, caps)), null, null);
    }

    static Mutant communicator(String id, String breakage, List<String> killers, Function<Communicator, Object> make) {
        return communicator(id, breakage, false, killers, (real, caps) -> make.apply(real));
    }

    static Mutant deviceUnderProvider(String id, String breakage, List<String> killers,
                                      BiFunction<ExternalMemory, Capabilities, Object> make) {
        return new Mutant(id, breakage, Where.DEVICE_UNDER_PROVIDER, false, killers, null,
                (real, caps) -> DeviceBreakages.broken(real, make.apply(real, caps)), null);
    }

    static Mutant device(String id, String breakage, List<String> killers, Function<ExternalMemory, Object> make) {
        return new Mutant(id, breakage, Where.DEVICE, false, killers, null,
                (real, caps) -> DeviceBreakages.broken(real, make.apply(real)), null);
    }

    static Mutant providerFault(String id, String breakage, List<String> killers, ProviderFault fault) {
        return new Mutant(id, breakage, Where.PROVIDER_FAULT, false, killers, null, null, Objects.requireNonNull(fault, "fault"));
    }
}
