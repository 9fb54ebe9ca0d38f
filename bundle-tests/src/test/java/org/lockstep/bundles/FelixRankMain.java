package org.lockstep.bundles;

import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

/**
 * One process of {@link FelixLaunchedJobIT}: starts its own Felix with Lockstep's bundles,
 * configures the DS provider through Configuration Admin, and joins the job the launcher's
 * environment names ({@code LOCKSTEP_RANK}, {@code LOCKSTEP_SIZE}, {@code LOCKSTEP_DEVICE},
 * {@code LOCKSTEP_JOB_KEY}) as its rank of the ring job. Prints one line with what it got; exits 0
 * only if the job ran. Arguments: the framework's cache directory.
 */
public final class FelixRankMain {
    private static final Duration SERVICE_WAIT = Duration.ofSeconds(60);

    private FelixRankMain() {
    }

    public static void main(String[] args) {
        try {
            run(Path.of(args[0]));
        } catch (Throwable t) {
            t.printStackTrace(); // the test shows this process's output when it fails
            System.exit(1);
        }
        System.exit(0); // bundles' threads (SCR, Config Admin) must not keep the process after the framework stopped
    }

    private static void run(Path storage) throws Exception {
        List<Path> bundles = ReactorJars.list(ReactorJars.RUNTIME_BUNDLES);
        try (LockstepFramework framework = LockstepFramework.start(storage, bundles)) {
            Dictionary<String, Object> properties = new Hashtable<>();
            properties.put("provider", "mailbox");
            properties.put("lockstep.mailbox.slots", "8");
            framework.configure(properties, SERVICE_WAIT);
            ServiceReference<?> reference = framework.configuredProvider(SERVICE_WAIT);
            Object provider = framework.context().getService(reference);
            Bundle api = framework.bundle("org.lockstep.api");
            Class<?> providerType = api.loadClass(LockstepFramework.LOCKSTEP_PROVIDER);
            Class<?> programType = api.loadClass("org.lockstep.api.RankProgram");
            Class<?> optionsType = api.loadClass("org.lockstep.api.JobOptions");
            Class<?> launchType = api.loadClass("org.lockstep.api.LaunchEnvironment");
            Object launch = ((java.util.Optional<?>) launchType.getMethod("current").invoke(null))
                    .orElseThrow(() -> new IllegalStateException("no launcher's environment (LOCKSTEP_RANK, LOCKSTEP_SIZE ...)"));
            int rank = (int) launchType.getMethod("rank").invoke(launch);
            int size = (int) launchType.getMethod("size").invoke(launch);
            RingJob job = new RingJob(api, size);
            Object options = optionsType.getMethod("ofRanks", int.class).invoke(null, size);
            try {
                providerType.getMethod("runAttached", optionsType, launchType, programType).invoke(provider, options, launch, job.program());
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("rank " + rank + ": the job failed inside the framework", e.getCause());
            } finally {
                framework.context().ungetService(reference);
            }
            System.out.println("rank " + rank + " of " + size + " in its own framework: received " + job.received.get(rank)
                    + ", sum " + job.sums.get(rank));
        }
    }
}
