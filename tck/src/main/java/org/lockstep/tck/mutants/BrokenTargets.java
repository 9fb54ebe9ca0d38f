package org.lockstep.tck.mutants;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;
import org.lockstep.conformance.DeviceTarget;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.RuleSkipped;
import org.lockstep.conformance.device.DeviceInterposer;
import org.lockstep.spi.device.ExternalMemory;

/** Targets made of a real one and a mutant. Close it when done (it may hold an interposer session). */
public final class BrokenTargets implements AutoCloseable {
    private final Optional<DeviceInterposer.Session> session;
    private final MessagingTarget messaging;

    private BrokenTargets(Optional<DeviceInterposer.Session> session, MessagingTarget messaging) {
        this.session = session;
        this.messaging = messaging;
    }

    /** The provider's worlds hand the program broken communicators. */
    static final class BrokenWorlds {
        private final LockstepProvider real;
        private final UnaryOperator<Communicator> breakCommunicator;
        private final String name;

        BrokenWorlds(LockstepProvider real, UnaryOperator<Communicator> breakCommunicator, String name) {
            this.real = real;
            this.breakCommunicator = breakCommunicator;
            this.name = name;
        }

        public String name() {
            return name;
        }

        public void runInThreads(JobOptions options, RankProgram program) {
            real.runInThreads(options, world -> program.run(breakCommunicator.apply(world)));
        }
    }

    /**
     * {@code real} broken by {@code mutant} (a communicator, device-under-provider or provider-fault mutant).
     *
     * @throws RuleSkipped if {@code mutant} is a fault of another provider than {@code real}'s
     */
    public static BrokenTargets of(Mutant mutant, MessagingTarget real) {
        String name = real.name() + "+" + mutant.id();
        return switch (mutant.where()) {
            case COMMUNICATOR -> {
                LockstepProvider broken = Forwarders.forward(LockstepProvider.class, real.provider(),
                        new BrokenWorlds(real.provider(), c -> mutant.communicator().apply(c, real.capabilities()), name));
                yield new BrokenTargets(Optional.empty(), real.withProvider(name, broken));
            }
            case DEVICE_UNDER_PROVIDER -> {
                DeviceInterposer.Session s = DeviceInterposer.open(d -> mutant.device().apply(d, real.capabilities()));
                yield new BrokenTargets(Optional.of(s), s.route(real).withProvider(name, real.provider()));
            }
            case PROVIDER_FAULT -> {
                Mutant.ProviderFault fault = mutant.fault();
                if (!fault.provider().equals(real.provider().name())) {
                    throw new RuleSkipped(mutant.id() + " is a fault the " + fault.provider() + " provider injects into itself; "
                            + real.provider().name() + " is under test");
                }
                yield new BrokenTargets(Optional.empty(), real.withOptions(o -> o.with(fault.property(), fault.value()))
                        .withProvider(name, real.provider()));
            }
            case DEVICE -> throw new IllegalArgumentException(mutant.id() + " breaks a device, not a provider");
        };
    }

    public MessagingTarget messaging() {
        return messaging;
    }

    /** {@code real} with every device it opens broken by {@code mutant}; power loss reaches the real device. */
    public static DeviceTarget device(Mutant mutant, DeviceTarget real) {
        Map<ExternalMemory, ExternalMemory> realOf = java.util.Collections.synchronizedMap(new IdentityHashMap<>());
        return new DeviceTarget(real.name() + "+" + mutant.id(), capacity -> {
            ExternalMemory d = real.open(capacity);
            ExternalMemory broken = mutant.device().apply(d, org.lockstep.conformance.Capabilities.of(1));
            realOf.put(broken, d);
            return broken;
        }, real.powerLoss().map(p -> broken -> p.crash(realOf.getOrDefault(broken, broken))));
    }

    @Override
    public void close() {
        session.ifPresent(DeviceInterposer.Session::close);
    }
}
