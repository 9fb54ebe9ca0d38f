package org.lockstep.bundles;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * Installs every product bundle, the jars they need and the Aries SPI Fly ServiceLoader mediator
 * into an embedded Apache Felix, and checks that all of them resolve and start, and that the
 * providers their {@code META-INF/services} files name are reachable the OSGi way (service
 * registry) and the JPMS way (a {@code ServiceLoader} call inside the consuming bundle).
 *
 * <p>The test JVM has none of the product on its class path, so every product type is loaded
 * through the bundle that exports it.
 */
class FelixBundlesIT {
    private static final String STORAGE_PROPERTY = "lockstep.felix.storage";
    private static final String SPI_FLY = "org.apache.aries.spifly.dynamic.bundle";
    private static final String PRODUCT_PREFIX = "org.lockstep.";
    private static final String SPI = "org.lockstep.spi";
    private static final String EMULATED = "org.lockstep.emulated";
    private static final String API = "org.lockstep.api";
    private static final String PCIE = "org.lockstep.pcie";
    private static final String MPI = "org.lockstep.mpi";
    private static final String LOCKSTEP_PROVIDER = "org.lockstep.api.LockstepProvider";
    private static final String LOCKSTEP_BOOTSTRAP = "org.lockstep.api.Lockstep";
    private static final String DEVICE_PROVIDER = "org.lockstep.spi.device.DeviceProvider";
    private static final String DEVICE_PROVIDERS = "org.lockstep.spi.device.DeviceProviders";
    private static final String DEVICE_SPEC = "org.lockstep.spi.device.DeviceSpec";
    private static final String EXTERNAL_MEMORY = "org.lockstep.spi.device.ExternalMemory";
    private static final String EMULATED_NAME = "emulated";
    private static final long DEVICE_CAPACITY = 1 << 20;
    private static final long WORD_OFFSET = 4096;
    private static final long WORD = 0x5EED_CAFE_F00D_D00DL;
    private static final Duration SERVICE_WAIT = Duration.ofSeconds(10);
    private static final long STOP_WAIT_MILLIS = 20_000;

    private static Framework framework;
    private static final List<Bundle> installed = new ArrayList<>();
    private static final Map<String, String> startFailures = new LinkedHashMap<>();

    @BeforeAll
    static void startFelixWithEveryBundle() throws Exception {
        Path storage = Path.of(System.getProperty(STORAGE_PROPERTY, "target/felix-cache"));
        deleteRecursively(storage);
        Map<String, String> config = new LinkedHashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.toAbsolutePath().toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                .orElseThrow(() -> new IllegalStateException("no OSGi FrameworkFactory on the test class path"));
        framework = factory.newFramework(config);
        framework.start();

        BundleContext context = framework.getBundleContext();
        for (Path jar : ReactorJars.list(ReactorJars.RUNTIME_BUNDLES)) {
            installed.add(context.installBundle(jar.toUri().toString()));
        }
        // The mediator first: its weaving hook must be in place before a consumer's classes load.
        List<Bundle> startOrder = new ArrayList<>(installed);
        startOrder.sort(Comparator.comparing(b -> !SPI_FLY.equals(b.getSymbolicName())));
        for (Bundle bundle : startOrder) {
            if (isFragment(bundle)) {
                continue;
            }
            try {
                bundle.start();
            } catch (BundleException e) {
                startFailures.put(bundle.getSymbolicName() + " (" + bundle.getLocation() + ")", e.getMessage());
            }
        }
    }

    @AfterAll
    static void stopFelix() throws Exception {
        if (framework != null) {
            framework.stop();
            framework.waitForStop(STOP_WAIT_MILLIS);
        }
    }

    @Test
    void everyBundleResolvesAndStarts() {
        assertTrue(installed.stream().anyMatch(b -> b.getSymbolicName().startsWith(PRODUCT_PREFIX)),
                () -> "no product bundle was installed: " + describe(installed));
        assertTrue(installed.stream().anyMatch(b -> SPI_FLY.equals(b.getSymbolicName())),
                () -> "SPI Fly was not installed: " + describe(installed));
        assertTrue(startFailures.isEmpty(), () -> "bundles that did not start:\n" + startFailures.entrySet().stream()
                .map(e -> "  " + e.getKey() + ": " + e.getValue()).collect(Collectors.joining("\n")));
        List<Bundle> notActive = installed.stream()
                .filter(b -> b.getState() != (isFragment(b) ? Bundle.RESOLVED : Bundle.ACTIVE)).toList();
        assertTrue(notActive.isEmpty(), () -> "bundles not active: " + describe(notActive));
    }

    @Test
    void everyDeclaredServiceLoaderProviderIsAnOsgiService() {
        Map<Bundle, List<String>> declared = new LinkedHashMap<>();
        for (Bundle bundle : productBundles()) {
            List<String> services = ManifestHeader.parse(bundle.getHeaders().get("Provide-Capability")).stream()
                    .filter(c -> c.names().contains(DescriptorConsistency.SERVICE_LOADER_NAMESPACE))
                    .map(c -> c.attribute(DescriptorConsistency.SERVICE_LOADER_NAMESPACE)).toList();
            if (!services.isEmpty()) {
                declared.put(bundle, services);
            }
        }
        Assumptions.assumeFalse(declared.isEmpty(), "no product bundle declares an osgi.serviceloader capability yet");
        declared.forEach((bundle, services) -> {
            for (String service : services) {
                await("a " + service + " service registered by " + bundle.getSymbolicName()).atMost(SERVICE_WAIT)
                        .until(() -> registeredBy(service, bundle).isPresent());
            }
        });
    }

    @Test
    void emulatedDeviceProviderIsReachableFromTheServiceRegistry() throws Exception {
        Bundle emulated = builtBundle(EMULATED);
        BundleContext context = framework.getBundleContext();
        await("the emulated DeviceProvider in the service registry").atMost(SERVICE_WAIT)
                .until(() -> registeredBy(DEVICE_PROVIDER, emulated).isPresent());
        ServiceReference<?> reference = registeredBy(DEVICE_PROVIDER, emulated).orElseThrow();
        Object provider = context.getService(reference);
        try {
            Class<?> providerType = bundle(SPI).loadClass(DEVICE_PROVIDER);
            assertTrue(providerType.isInstance(provider),
                    () -> provider.getClass() + " is not the " + DEVICE_PROVIDER + " that " + SPI + " exports");
            assertEquals(EMULATED_NAME, call(providerType, provider, "name"));
            openWriteReadClose(provider);
        } finally {
            context.ungetService(reference);
        }
    }

    @Test
    void serviceLoaderInsideTheSpiBundleFindsTheEmulatedProvider() throws Exception {
        builtBundle(EMULATED);
        Class<?> providers = bundle(SPI).loadClass(DEVICE_PROVIDERS);
        Class<?> providerType = bundle(SPI).loadClass(DEVICE_PROVIDER);
        Object provider = invoke(method(providers, "named", 1), null, EMULATED_NAME);
        assertEquals(EMULATED_NAME, call(providerType, provider, "name"));
    }

    @Test
    void apiBootstrapFindsTheMailboxProviderThroughServiceLoader() throws Exception {
        Bundle pcie = builtBundle(PCIE);
        BundleContext context = framework.getBundleContext();
        await("the mailbox LockstepProvider in the service registry").atMost(SERVICE_WAIT)
                .until(() -> registeredBy(LOCKSTEP_PROVIDER, pcie).isPresent());
        ServiceReference<?> reference = registeredBy(LOCKSTEP_PROVIDER, pcie).orElseThrow();
        Object provider = context.getService(reference);
        try {
            Class<?> providerType = bundle(API).loadClass(LOCKSTEP_PROVIDER);
            Object name = call(providerType, provider, "name");
            Map<?, ?> found = (Map<?, ?>) bundle(API).loadClass(LOCKSTEP_BOOTSTRAP).getMethod("providers").invoke(null);
            assertTrue(found.containsKey(name), () -> "Lockstep.providers() inside OSGi lists " + found + ", not " + name);
        } finally {
            context.ungetService(reference);
        }
    }

    @Test
    void theNativeMpiProviderRegistersWithoutLoadingALibrary() throws Exception {
        Bundle mpi = builtBundle(MPI);
        // The bundle registers two providers (mpi and hybrid) in no fixed order: look for the one named mpi.
        await("the mpi and hybrid LockstepProviders in the service registry").atMost(SERVICE_WAIT)
                .until(() -> providerNames(mpi).containsAll(List.of("mpi", "hybrid")));
    }

    /** The names of the LockstepProviders {@code bundle} has registered; asking for a name loads no native library. */
    private static List<Object> providerNames(Bundle bundle) throws Exception {
        ServiceReference<?>[] references = framework.getBundleContext().getServiceReferences(LOCKSTEP_PROVIDER, null);
        if (references == null) {
            return List.of();
        }
        Class<?> providerType = bundle(API).loadClass(LOCKSTEP_PROVIDER);
        BundleContext context = framework.getBundleContext();
        List<Object> names = new ArrayList<>();
        for (ServiceReference<?> reference : references) {
            if (reference.getBundle().equals(bundle)) {
                Object provider = context.getService(reference);
                try {
                    names.add(call(providerType, provider, "name"));
                } finally {
                    context.ungetService(reference);
                }
            }
        }
        return names;
    }

    /** Opens a small emulated device through the SPI types the spi bundle exports, and uses it. */
    private static void openWriteReadClose(Object provider) throws Exception {
        Bundle spi = bundle(SPI);
        Class<?> providerType = spi.loadClass(DEVICE_PROVIDER);
        Class<?> specType = spi.loadClass(DEVICE_SPEC);
        Class<?> memoryType = spi.loadClass(EXTERNAL_MEMORY);
        Object spec = specType.getMethod("of", String.class, long.class).invoke(null, EMULATED_NAME, DEVICE_CAPACITY);
        Object memory = invoke(method(providerType, "open", 1), provider, spec);
        try {
            assertEquals(DEVICE_CAPACITY, call(memoryType, memory, "capacity"));
            memoryType.getMethod("putLongRelease", long.class, long.class).invoke(memory, WORD_OFFSET, WORD);
            assertEquals(WORD, memoryType.getMethod("getLongAcquire", long.class).invoke(memory, WORD_OFFSET));
        } finally {
            call(memoryType, memory, "close");
        }
    }

    /** The product bundle {@code symbolicName}; the test is skipped while its module is an empty placeholder. */
    private static Bundle builtBundle(String symbolicName) {
        // A module whose sources have not landed is an empty jar named after its artifact, not its module.
        Optional<Bundle> bundle = installed.stream().filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst();
        Assumptions.assumeTrue(bundle.isPresent(), symbolicName + " is not built yet");
        Enumeration<?> classes = bundle.get().findEntries("/", "*.class", true);
        Assumptions.assumeTrue(classes != null && classes.hasMoreElements(), symbolicName + " holds no classes yet");
        return bundle.get();
    }

    private static Optional<ServiceReference<?>> registeredBy(String service, Bundle bundle) throws InvalidSyntaxException {
        ServiceReference<?>[] references = framework.getBundleContext().getServiceReferences(service, null);
        return references == null ? Optional.empty()
                : Arrays.stream(references).filter(r -> r.getBundle().equals(bundle)).findFirst();
    }

    private static List<Bundle> productBundles() {
        return installed.stream().filter(b -> b.getSymbolicName().startsWith(PRODUCT_PREFIX)).toList();
    }

    private static Bundle bundle(String symbolicName) {
        return installed.stream().filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("bundle " + symbolicName + " is not installed: " + describe(installed)));
    }

    private static boolean isFragment(Bundle bundle) {
        return bundle.getHeaders().get(Constants.FRAGMENT_HOST) != null;
    }

    private static String describe(List<Bundle> bundles) {
        return bundles.stream().map(b -> b.getSymbolicName() + " " + b.getVersion() + " [" + stateName(b.getState()) + "]")
                .collect(Collectors.joining(", ", "[", "]"));
    }

    private static String stateName(int state) {
        return switch (state) {
            case Bundle.INSTALLED -> "INSTALLED";
            case Bundle.RESOLVED -> "RESOLVED";
            case Bundle.STARTING -> "STARTING";
            case Bundle.STOPPING -> "STOPPING";
            case Bundle.ACTIVE -> "ACTIVE";
            case Bundle.UNINSTALLED -> "UNINSTALLED";
            default -> "state " + state;
        };
    }

    private static Object call(Class<?> type, Object target, String name) throws Exception {
        return invoke(type.getMethod(name), target);
    }

    private static Method method(Class<?> type, String name, int parameters) {
        return Arrays.stream(type.getMethods()).filter(m -> m.getName().equals(name) && m.getParameterCount() == parameters)
                .findFirst().orElseThrow(() -> new AssertionError(type + " has no public " + name + " with " + parameters + " parameters"));
    }

    /** Invokes and rethrows what the method threw, so a failure shows the product's own exception. */
    private static Object invoke(Method method, Object target, Object... args) throws Exception {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
