package org.lockstep.bundles;

import static org.awaitility.Awaitility.await;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * Apache Felix with Lockstep's runtime bundles, Declarative Services and Configuration Admin
 * installed and started: what {@link FelixJobIT} runs its threads in and what each process of
 * {@link FelixLaunchedJobIT} starts for itself. The product is reached through its bundles only,
 * so calls into it go by reflection.
 */
final class LockstepFramework implements AutoCloseable {
    static final String PID = "org.lockstep.provider";
    static final String LOCKSTEP_PROVIDER = "org.lockstep.api.LockstepProvider";
    private static final String CONFIGURATION_ADMIN = "org.osgi.service.cm.ConfigurationAdmin";
    private static final String SPI_FLY = "org.apache.aries.spifly.dynamic.bundle";
    private static final String CONFIGURED = "(&(objectClass=" + LOCKSTEP_PROVIDER + ")(org.lockstep.configured=true))";

    private final Framework framework;
    private final List<Bundle> installed = new ArrayList<>();

    private LockstepFramework(Framework framework) {
        this.framework = framework;
    }

    /** Starts Felix with its cache in {@code storage} and every jar of {@code bundles} installed, SPI Fly started first. */
    static LockstepFramework start(Path storage, List<Path> bundles) throws BundleException {
        Map<String, String> config = new LinkedHashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.toAbsolutePath().toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst().orElseThrow();
        LockstepFramework started = new LockstepFramework(factory.newFramework(config));
        started.framework.start();
        BundleContext context = started.context();
        for (Path jar : bundles) {
            started.installed.add(context.installBundle(jar.toUri().toString()));
        }
        List<Bundle> startOrder = new ArrayList<>(started.installed);
        startOrder.sort(Comparator.comparing(b -> !SPI_FLY.equals(b.getSymbolicName())));
        for (Bundle bundle : startOrder) {
            if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                bundle.start();
            }
        }
        return started;
    }

    BundleContext context() {
        return framework.getBundleContext();
    }

    /** Writes the configuration of {@link #PID} through Configuration Admin (waiting up to {@code wait} for it). */
    void configure(Dictionary<String, Object> properties, Duration wait) throws Exception {
        BundleContext context = context();
        await("Configuration Admin").atMost(wait).until(() -> context.getServiceReference(CONFIGURATION_ADMIN) != null);
        Object admin = context.getService(context.getServiceReference(CONFIGURATION_ADMIN));
        Object configuration = admin.getClass().getMethod("getConfiguration", String.class, String.class).invoke(admin, PID, "?");
        Method update = Arrays.stream(configuration.getClass().getMethods())
                .filter(m -> m.getName().equals("update") && m.getParameterCount() == 1).findFirst().orElseThrow();
        update.setAccessible(true);
        update.invoke(configuration, properties);
    }

    /** The provider service the DS component publishes once configured (waiting up to {@code wait} for it). */
    ServiceReference<?> configuredProvider(Duration wait) throws Exception {
        await("the configured provider service").atMost(wait).until(() -> references() != null);
        return references()[0];
    }

    private ServiceReference<?>[] references() {
        try {
            return context().getServiceReferences((String) null, CONFIGURED);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    Bundle bundle(String symbolicName) {
        return installed.stream().filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("bundle " + symbolicName + " is not installed"));
    }

    @Override
    public void close() throws Exception {
        framework.stop();
        framework.waitForStop(20_000);
    }
}
