package org.lockstep.bundles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * A job inside an OSGi framework: Apache Felix with Declarative Services (Felix SCR) and
 * Configuration Admin; the Lockstep provider is the DS component of {@code org.lockstep.osgi},
 * configured through Configuration Admin, and four ranks (threads of the framework) exchange
 * messages around a ring and reduce. The test JVM has none of the product on its class path: every
 * product type is reached through its bundle, so the calls go by reflection.
 */
class FelixJobIT {
    private static final Duration SERVICE_WAIT = Duration.ofSeconds(20);
    private static final int RANKS = 4;

    private static LockstepFramework framework;

    @BeforeAll
    static void startFelix() throws Exception {
        framework = LockstepFramework.start(Path.of("target/felix-job-cache"), ReactorJars.list(ReactorJars.RUNTIME_BUNDLES));
    }

    @AfterAll
    static void stopFelix() throws Exception {
        if (framework != null) {
            framework.close();
        }
    }

    @Test
    void fourRanksRunOnTheProviderThatConfigurationAdminConfigured() throws Exception {
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("provider", "mailbox");
        properties.put("lockstep.mailbox.slots", "8");
        framework.configure(properties, SERVICE_WAIT);
        BundleContext context = framework.context();
        ServiceReference<?> reference = framework.configuredProvider(SERVICE_WAIT);
        Object provider = context.getService(reference);
        Bundle api = framework.bundle("org.lockstep.api");
        Class<?> providerType = api.loadClass(LockstepFramework.LOCKSTEP_PROVIDER);
        assertEquals("mailbox", providerType.getMethod("name").invoke(provider));
        assertTrue(((String) providerType.getMethod("description").invoke(provider)).contains(LockstepFramework.PID));
        assertEquals(Map.of("lockstep.mailbox.slots", "8"), provider.getClass().getMethod("jobProperties").invoke(provider));

        RingJob job = new RingJob(api, RANKS);
        Class<?> programType = api.loadClass("org.lockstep.api.RankProgram");
        Class<?> optionsType = api.loadClass("org.lockstep.api.JobOptions");
        Object options = optionsType.getMethod("ofRanks", int.class).invoke(null, RANKS);
        try {
            providerType.getMethod("runInThreads", optionsType, programType).invoke(provider, options, job.program());
        } catch (InvocationTargetException e) {
            throw new AssertionError("the job failed inside the framework", e.getCause());
        } finally {
            context.ungetService(reference);
        }
        for (int r = 0; r < RANKS; r++) {
            assertEquals(RingJob.expectedReceived(r, RANKS), job.received.get(r), "rank " + r + " got its left neighbour's number");
            assertEquals(RingJob.expectedSum(RANKS), job.sums.get(r), "rank " + r + "'s sum");
        }
    }
}
