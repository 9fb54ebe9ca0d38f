package org.lockstep.tools;

import java.util.LinkedHashMap;
import java.util.Map;

import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepProvider;

import picocli.CommandLine.Option;

/** Options shared by the commands that run a job: which provider, which device, extra provider properties. */
final class JobSettings {
    static final String DEVICE_PROPERTY = "lockstep.device";
    static final String DEFAULT_DEVICE = "emulated";

    @Option(names = "--provider", paramLabel = "NAME",
            description = "Provider to run on (default: the one Lockstep chooses; see `lockstep providers`).")
    String provider;

    @Option(names = "--device", paramLabel = "DEVICE", defaultValue = DEFAULT_DEVICE,
            description = "Device the ranks share (default: ${DEFAULT-VALUE}).")
    String device;

    @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "Extra provider property (repeatable).")
    Map<String, String> properties = new LinkedHashMap<>();

    /** Job options for {@code ranks} ranks with these settings and the command's own {@code extra} properties. */
    JobOptions jobOptions(int ranks, Map<String, String> extra) {
        JobOptions options = JobOptions.ofRanks(ranks).with(DEVICE_PROPERTY, device);
        for (Map.Entry<String, String> e : properties.entrySet()) {
            options = options.with(e.getKey(), e.getValue());
        }
        for (Map.Entry<String, String> e : extra.entrySet()) {
            options = options.with(e.getKey(), e.getValue());
        }
        if (provider != null) {
            options = options.with(Lockstep.PROVIDER_PROPERTY, provider);
        }
        return options;
    }

    /** The provider that {@link Lockstep#run(JobOptions, org.lockstep.api.RankProgram)} will choose for {@code options}. */
    static LockstepProvider providerFor(JobOptions options) {
        return Lockstep.provider(options.property(Lockstep.PROVIDER_PROPERTY).orElse(null));
    }
}
