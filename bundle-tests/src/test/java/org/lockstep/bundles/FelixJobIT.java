package org.lockstep.bundles;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * A job inside an OSGi framework: Apache Felix with Declarative Services (Felix SCR) and
 * Configuration Admin; the Lockstep provider is the DS component of {@code org.lockstep.osgi},
 * configured through Configuration Admin, and four ranks (threads of the framework) exchange
 * messages around a ring and reduce. The test JVM has none of the product on its class path: every
 * product type is reached through its bundle, so the calls go by reflection.
 */
class FelixJobIT {
    private static final String PID = "org.lockstep.provider";
    private static final String CONFIGURATION_ADMIN = "org.osgi.service.cm.ConfigurationAdmin";
    private static final String LOCKSTEP_PROVIDER = "org.lockstep.api.LockstepProvider";
    private static final String SPI_FLY = "org.apache.aries.spifly.dynamic.bundle";
    private static final Duration SERVICE_WAIT = Duration.ofSeconds(20);
    private static final int RANKS = 4;

    private static Framework framework;
    private static final List<Bundle> installed = new ArrayList<>();

    @BeforeAll
    static void startFelix() throws Exception {
        Map<String, String> config = new LinkedHashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, Path.of("target/felix-job-cache").toAbsolutePath().toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst().orElseThrow();
        framework = factory.newFramework(config);
        framework.start();
        BundleContext context = framework.getBundleContext();
        for (Path jar : ReactorJars.list(ReactorJars.RUNTIME_BUNDLES)) {
            installed.add(context.installBundle(jar.toUri().toString()));
        }
        List<Bundle> startOrder = new ArrayList<>(installed);
        startOrder.sort(Comparator.comparing(b -> !SPI_FLY.equals(b.getSymbolicName())));
        for (Bundle bundle : startOrder) {
            if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                bundle.start();
            }
        }
    }

    @AfterAll
    static void stopFelix() throws Exception {
        if (framework != null) {
            framework.stop();
            framework.waitForStop(20_000);
        }
    }

    @Test
    void fourRanksRunOnTheProviderThatConfigurationAdminConfigured() throws Exception {
        BundleContext context = framework.getBundleContext();
        await("Configuration Admin").atMost(SERVICE_WAIT).until(() -> context.getServiceReference(CONFIGURATION_ADMIN) != null);
        Object admin = context.getService(context.getServiceReference(CONFIGURATION_ADMIN));
        Object configuration = admin.getClass().getMethod("getConfiguration", String.class, String.class)
                .invoke(admin, PID, "?");
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("provider", "mailbox");
        properties.put("lockstep.mailbox.slots", "8");
        Method update = Arrays.stream(configuration.getClass().getMethods())
                .filter(m -> m.getName().equals("update") && m.getParameterCount() == 1).findFirst().orElseThrow();
        update.setAccessible(true);
        update.invoke(configuration, properties);

        String filter = "(&(objectClass=" + LOCKSTEP_PROVIDER + ")(org.lockstep.configured=true))";
        await("the configured provider service").atMost(SERVICE_WAIT)
                .until(() -> context.getServiceReferences((String) null, filter) != null);
        ServiceReference<?> reference = context.getServiceReferences((String) null, filter)[0];
        Object provider = context.getService(reference);
        Bundle api = bundle("org.lockstep.api");
        Class<?> providerType = api.loadClass(LOCKSTEP_PROVIDER);
        assertEquals("mailbox", providerType.getMethod("name").invoke(provider));
        assertTrue(((String) providerType.getMethod("description").invoke(provider)).contains(PID));
        assertEquals(Map.of("lockstep.mailbox.slots", "8"), provider.getClass().getMethod("jobProperties").invoke(provider));

        AtomicLongArray received = new AtomicLongArray(RANKS);
        AtomicLongArray sums = new AtomicLongArray(RANKS);
        Class<?> programType = api.loadClass("org.lockstep.api.RankProgram");
        Object program = Proxy.newProxyInstance(programType.getClassLoader(), new Class<?>[] {programType}, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return method.invoke(this, args);
            }
            ringAndSum(api, args[0], received, sums);
            return null;
        });
        Class<?> optionsType = api.loadClass("org.lockstep.api.JobOptions");
        Object options = optionsType.getMethod("ofRanks", int.class).invoke(null, RANKS);
        try {
            providerType.getMethod("runInThreads", optionsType, programType).invoke(provider, options, program);
        } catch (InvocationTargetException e) {
            throw new AssertionError("the job failed inside the framework", e.getCause());
        } finally {
            context.ungetService(reference);
        }
        for (int r = 0; r < RANKS; r++) {
            assertEquals(100 + (r + RANKS - 1) % RANKS, received.get(r), "rank " + r + " got its left neighbour's number");
            assertEquals(100L * RANKS + RANKS * (RANKS - 1) / 2, sums.get(r), "rank " + r + "'s sum");
        }
    }

    /** One rank: its number to the right, the left neighbour's in, then the sum of all numbers. */
    private static void ringAndSum(Bundle api, Object world, AtomicLongArray received, AtomicLongArray sums) throws Exception {
        Class<?> communicator = api.loadClass("org.lockstep.api.Communicator");
        Class<?> datatype = api.loadClass("org.lockstep.api.Datatype");
        Class<?> op = api.loadClass("org.lockstep.api.Op");
        Object longs = datatype.getField("LONG").get(null);
        int rank = (int) communicator.getMethod("rank").invoke(world);
        int size = (int) communicator.getMethod("size").invoke(world);
        long[] out = {100 + rank};
        long[] in = new long[1];
        communicator.getMethod("sendrecv", MemorySegment.class, long.class, datatype, int.class, int.class,
                        MemorySegment.class, long.class, datatype, int.class, int.class)
                .invoke(world, MemorySegment.ofArray(out), 1L, longs, (rank + 1) % size, 0,
                        MemorySegment.ofArray(in), 1L, longs, (rank + size - 1) % size, 0);
        received.set(rank, in[0]);
        long[] sum = new long[1];
        communicator.getMethod("allreduce", MemorySegment.class, MemorySegment.class, long.class, datatype, op)
                .invoke(world, MemorySegment.ofArray(out), MemorySegment.ofArray(sum), 1L, longs, op.getField("SUM").get(null));
        sums.set(rank, sum[0]);
    }

    private static Bundle bundle(String symbolicName) {
        return installed.stream().filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("bundle " + symbolicName + " is not installed"));
    }
}
