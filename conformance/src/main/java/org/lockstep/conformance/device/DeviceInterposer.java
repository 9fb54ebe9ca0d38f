package org.lockstep.conformance.device;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import org.lockstep.api.ErrorClass;
import org.lockstep.conformance.DeviceRouting;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.RuleSkipped;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Puts a decorator between a provider that runs over a device and that device. A session names a
 * decorator; the provider is rerouted (through its {@link DeviceRouting}) to the device provider
 * {@value InterposingDeviceProvider#NAME}, which opens the real device and hands the provider the
 * decorated one. Used to observe ownership of device memory ({@link OwnershipMonitor}) and, in the
 * self-test, to break a device on purpose.
 */
public final class DeviceInterposer {
    /**
     * Device option naming the session, or several separated by {@link #SESSION_SEPARATOR}: the
     * first decorates the real device, the next decorates what the first made, and so on.
     */
    static final String SESSION_OPTION = "conformance.session";
    static final String SESSION_SEPARATOR = ",";
    /** Device option naming the real device provider. */
    static final String INNER_OPTION = "conformance.inner";

    private static final AtomicLong NEXT_SESSION = new AtomicLong();
    private static final Map<String, Session> SESSIONS = new ConcurrentHashMap<>();

    private DeviceInterposer() {
    }

    /** A registered decorator and the devices opened through it. Close it when the runs are over. */
    public static final class Session implements AutoCloseable {
        private final String id;
        private final UnaryOperator<ExternalMemory> decorator;
        private final List<ExternalMemory> opened = new CopyOnWriteArrayList<>();

        private final boolean innermost;

        private Session(String id, UnaryOperator<ExternalMemory> decorator, boolean innermost) {
            this.id = id;
            this.decorator = decorator;
            this.innermost = innermost;
        }

        public String id() {
            return id;
        }

        /** The decorated devices opened so far, oldest first. */
        public List<ExternalMemory> devices() {
            return List.copyOf(opened);
        }

        ExternalMemory decorate(ExternalMemory device) {
            ExternalMemory decorated = decorator.apply(device);
            opened.add(decorated);
            return decorated;
        }

        /**
         * {@code target} rerouted through this session.
         *
         * @throws RuleSkipped if the target does not declare how it is pointed at a device
         */
        public MessagingTarget route(MessagingTarget target) {
            Optional<DeviceRouting> routing = target.capabilities().deviceRouting();
            if (routing.isEmpty()) {
                throw new RuleSkipped("the provider does not declare DEVICE_TRANSPORT (how it is pointed at a device)");
            }
            DeviceRouting r = routing.get();
            return target.withOptions(options -> {
                Map<String, String> deviceOptions = new TreeMap<>(r.deviceOptions(options));
                if (r.device(options).equals(InterposingDeviceProvider.NAME)) {
                    // Routed through another session already: this one decorates what that one made (an
                    // observer sees the broken device), or the real device first if it must hold the real one.
                    String others = deviceOptions.get(SESSION_OPTION);
                    deviceOptions.put(SESSION_OPTION, innermost ? id + SESSION_SEPARATOR + others : others + SESSION_SEPARATOR + id);
                } else {
                    deviceOptions.put(SESSION_OPTION, id);
                    deviceOptions.put(INNER_OPTION, r.device(options));
                }
                return r.reroute(options, InterposingDeviceProvider.NAME, deviceOptions);
            });
        }

        @Override
        public void close() {
            SESSIONS.remove(id);
        }
    }

    /** Registers {@code decorator}. */
    public static Session open(UnaryOperator<ExternalMemory> decorator) {
        return open(decorator, false);
    }

    /**
     * Registers {@code decorator}; with {@code innermost}, it decorates the real device itself even
     * when the target is routed through other sessions already (which then decorate what it made).
     */
    public static Session open(UnaryOperator<ExternalMemory> decorator, boolean innermost) {
        Session s = new Session("s" + NEXT_SESSION.incrementAndGet(), decorator, innermost);
        SESSIONS.put(s.id(), s);
        return s;
    }

    static Session session(String id) {
        Session s = id == null ? null : SESSIONS.get(id);
        if (s == null) {
            throw new DeviceException(ErrorClass.ARG, "device provider " + InterposingDeviceProvider.NAME + ": no session '" + id
                    + "' (it is opened by the conformance kit; option " + SESSION_OPTION + ")");
        }
        return s;
    }
}
