package org.lockstep.osgi;

import java.util.LinkedHashMap;
import java.util.Map;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;

/**
 * A Lockstep provider as an OSGi service, configured through Configuration Admin under the PID
 * {@value #PID}: {@code provider} names the provider (default {@code mailbox}, found as
 * {@link Lockstep#find} finds them: ServiceLoader, which the OSGi ServiceLoader Mediator
 * serves in a container), and every key that starts with {@code lockstep.} is a job property
 * applied to each job it runs (a job's own options win). The service carries the property
 * {@value #CONFIGURED_PROPERTY}{@code =true}. With no configuration there is no service.
 */
@Component(configurationPid = ConfiguredProvider.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = LockstepProvider.class, property = ConfiguredProvider.CONFIGURED_PROPERTY + "=true")
public final class ConfiguredProvider implements LockstepProvider {
    /** The Configuration Admin PID. */
    public static final String PID = "org.lockstep.provider";
    /** The configuration key that names the provider. */
    public static final String PROVIDER_KEY = "provider";
    static final String DEFAULT_PROVIDER = "mailbox";
    /** The service property that tells this service from the providers' own (not a job property: no "lockstep." prefix). */
    public static final String CONFIGURED_PROPERTY = "org.lockstep.configured";
    private static final String JOB_PROPERTY_PREFIX = "lockstep.";

    private volatile LockstepProvider provider;
    private volatile Map<String, String> jobProperties = Map.of();

    @Activate
    @Modified
    void configure(Map<String, Object> configuration) {
        String name = String.valueOf(configuration.getOrDefault(PROVIDER_KEY, DEFAULT_PROVIDER));
        LockstepProvider found = Lockstep.find(name).orElseThrow(() -> new LockstepException(ErrorClass.NO_PROVIDER,
                "configuration " + PID + ": no provider '" + name + "'; installed: " + Lockstep.providers().keySet()));
        Map<String, String> properties = new LinkedHashMap<>();
        configuration.forEach((key, value) -> {
            if (key.startsWith(JOB_PROPERTY_PREFIX)) {
                properties.put(key, String.valueOf(value));
            }
        });
        provider = found;
        jobProperties = Map.copyOf(properties);
    }

    /** The job properties the configuration sets, for every job. */
    public Map<String, String> jobProperties() {
        return jobProperties;
    }

    @Override
    public String name() {
        return provider.name();
    }

    @Override
    public String description() {
        return provider.description() + " (configured by " + PID + ")";
    }

    @Override
    public void runInThreads(JobOptions options, RankProgram program) {
        provider.runInThreads(configured(options), program);
    }

    @Override
    public void runAttached(JobOptions options, LaunchEnvironment launch, RankProgram program) {
        provider.runAttached(configured(options), launch, program);
    }

    private JobOptions configured(JobOptions options) {
        JobOptions configured = options;
        for (Map.Entry<String, String> property : jobProperties.entrySet()) {
            if (!options.properties().containsKey(property.getKey())) {
                configured = configured.with(property.getKey(), property.getValue());
            }
        }
        return configured;
    }
}
