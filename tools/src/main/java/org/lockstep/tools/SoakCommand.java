package org.lockstep.tools;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep soak}: repeated fault trials of checkpoint and restart, each compared with a
 * fault-free run. Both end with {@code trials=N passed=M lost=L duplicated=D}; exit 0 when every
 * trial passed.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
        description = "Fault trials of checkpoint and restart: the checkpoint workload (ring, all-to-all and ANY_SOURCE traffic, "
                + "periodic uncoordinated checkpoints) compared with a fault-free run. Ends with "
                + "`trials=N passed=M lost=L duplicated=D`.",
        subcommands = {SoakCommand.Restart.class, SoakCommand.PowerLoss.class})
final class SoakCommand {
    /** Options of both soaks. */
    static final class Common {
        @Option(names = "--trials", paramLabel = "N", defaultValue = "10", description = "Trials with a fault (default: ${DEFAULT-VALUE}).")
        int trials;

        @Option(names = "--iterations", paramLabel = "N", defaultValue = "" + CheckpointWorkload.DEFAULT_ITERATIONS,
                description = "Iterations of the workload (default: ${DEFAULT-VALUE}).")
        int iterations;

        @Option(names = "--checkpoint-every", paramLabel = "N", defaultValue = "" + CheckpointWorkload.DEFAULT_CHECKPOINT_EVERY,
                description = "Rank r checkpoints every N + r iterations (default: ${DEFAULT-VALUE}).")
        int checkpointEvery;

        @Option(names = "--seed", paramLabel = "S", description = "Seed of the fault choices (default: random, printed).")
        Long seed;

        @Option(names = {"-o", "--option"}, paramLabel = "KEY=VALUE", mapFallbackValue = "",
                description = "Extra job property (repeatable).")
        Map<String, String> properties = new LinkedHashMap<>();

        long seed() {
            return seed != null ? seed : new java.security.SecureRandom().nextLong();
        }

        void check(CommandSpec spec) {
            if (trials < 0 || iterations < 1 || checkpointEvery < 1) {
                throw new ParameterException(spec.commandLine(), "--trials must not be negative, --iterations and --checkpoint-every must be positive");
            }
        }
    }

    static int finish(CommandSpec spec, long seed, SoakSummary summary) {
        PrintWriter out = spec.commandLine().getOut();
        out.println("faults struck in " + summary.faulted() + " of " + summary.trials().size() + " trials (seed " + seed + ")");
        out.println(summary.line());
        out.flush();
        return summary.allPassed() ? 0 : LockstepCommand.FAILED;
    }

    @Command(name = "restart", mixinStandardHelpOptions = true,
            description = "Launched processes with --restart-on-failure; each trial kills -9 a random rank at a random moment "
                    + "and the launcher restarts it from its own checkpoint while the others keep running.")
    static final class Restart implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        Common common = new Common();

        @Option(names = {"-n", "--processes"}, paramLabel = "N", defaultValue = "4", description = "Processes of the job (default: ${DEFAULT-VALUE}).")
        int processes;

        @Option(names = "--jvm-option", paramLabel = "OPTION",
                description = "Option for every rank's JVM (repeatable; default: -Xms128m -Xmx128m -XX:+AlwaysPreTouch).")
        List<String> jvmOptions;

        @Override
        public Integer call() {
            common.check(spec);
            if (processes < 2) {
                throw new ParameterException(spec.commandLine(), "--processes must be at least 2, got " + processes);
            }
            long seed = common.seed();
            PrintWriter out = spec.commandLine().getOut();
            List<String> jvm = jvmOptions == null ? List.of("-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch") : new ArrayList<>(jvmOptions);
            RestartSoak soak = new RestartSoak(new RestartSoak.Settings(processes, common.trials, common.iterations, common.checkpointEvery,
                    seed, jvm, common.properties), line -> {
                        out.println(line);
                        out.flush();
                    });
            return finish(spec, seed, soak.run());
        }
    }

    @Command(name = "power-loss", mixinStandardHelpOptions = true,
            description = "In one JVM over the emulated device: each trial cuts power at a random device access (every rank "
                    + "loses power together, unpersisted writes are lost), powers on, and runs the job again: every rank "
                    + "restarts from its own checkpoint.")
    static final class PowerLoss implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        Common common = new Common();

        @Option(names = {"-n", "--ranks"}, paramLabel = "N", defaultValue = "4", description = "Ranks of the job (default: ${DEFAULT-VALUE}).")
        int ranks;

        @Option(names = "--torn", negatable = true, defaultValue = "true", fallbackValue = "true",
                description = "Lose unpersisted data 8-byte word by word, at random (default: ${DEFAULT-VALUE}; --no-torn: whole lines).")
        boolean torn;

        @Override
        public Integer call() {
            common.check(spec);
            if (ranks < 2) {
                throw new ParameterException(spec.commandLine(), "--ranks must be at least 2, got " + ranks);
            }
            long seed = common.seed();
            PrintWriter out = spec.commandLine().getOut();
            PowerLossSoak soak = new PowerLossSoak(new PowerLossSoak.Settings(ranks, common.trials, common.iterations,
                    common.checkpointEvery, seed, torn, common.properties), line -> {
                        out.println(line);
                        out.flush();
                    });
            return finish(spec, seed, soak.run());
        }
    }
}
