package org.lockstep.applications;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/**
 * Runs one application by name: {@code ApplicationMain [--ranks N] sort --keys N}. Started by
 * {@code lockstep run}, it is one rank of the launcher's world; otherwise it runs {@code --ranks}
 * threads (default {@value #DEFAULT_RANKS}) on the provider Lockstep chooses. Rank 0 prints
 * {@link #resultLine}; a failed self-check ends the process with an {@link AssertionError}.
 */
public final class ApplicationMain {
    static final int DEFAULT_RANKS = 4;

    private ApplicationMain() {
    }

    /** The command line: picocli sets the fields. */
    @Command(name = "ApplicationMain")
    private static final class CommandLineOptions {
        @Option(names = "--ranks", description = "threads to run when not started by the launcher")
        int ranks = DEFAULT_RANKS;
        @Parameters(index = "0", arity = "0..1")
        String application;
        @Unmatched
        List<String> arguments = new ArrayList<>();
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (LockstepException e) {
            // lockstep run turns the JVM's report into one line itself (its --verbose keeps the trace); mpirun does not
            if (System.getenv(LaunchEnvironment.LAUNCHER_PID) != null || Boolean.getBoolean(Lockstep.STACK_TRACES_PROPERTY)) {
                throw e;
            }
            System.err.println("ApplicationMain failed: " + e.getClass().getSimpleName() + ": " + e.getMessage()
                    + " (-D" + Lockstep.STACK_TRACES_PROPERTY + "=true shows the stack trace)");
            System.exit(1);
        }
    }

    private static void run(String[] args) {
        CommandLineOptions options = new CommandLineOptions();
        CommandLine commandLine = new CommandLine(options).setStopAtPositional(true);
        try {
            commandLine.parseArgs(args);
        } catch (ParameterException e) {
            throw new LockstepException(ErrorClass.ARG, e.getMessage());
        }
        if (options.application == null) {
            System.err.println("usage: [--ranks N] APPLICATION [ARGS]" + System.lineSeparator() + Applications.usage());
            System.exit(2);
        }
        Application app = Applications.create(options.application, options.arguments);
        long start = System.nanoTime();
        Lockstep.run(JobOptions.ofRanks(options.ranks), world -> {
            long digest = app.run(world);
            if (world.rank() == 0) {
                System.out.println(resultLine(app, world.size(), digest, (System.nanoTime() - start) / 1e9));
            }
        });
    }

    /** {@code app=… size=… ranks=… digest=… app_seconds=… mb_per_s=… check=ok}: the result of a run that checked itself. */
    public static String resultLine(Application app, int ranks, long digest, double seconds) {
        return String.format(Locale.ROOT, "app=%s size=%d ranks=%d digest=%d app_seconds=%.3f mb_per_s=%.1f check=ok", app.name(),
                app.size(), ranks, digest, seconds, app.dataBytes() / seconds / 1e6);
    }
}
