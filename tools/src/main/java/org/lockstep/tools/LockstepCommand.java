package org.lockstep.tools;

import java.io.PrintWriter;
import java.io.UncheckedIOException;

import org.lockstep.api.LockstepException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.ParseResult;

/**
 * The {@code lockstep} command. Exit codes: 0 success, 1 a failed run (a {@link LockstepException}
 * or a failed check, message on standard error), 2 a usage error (with the usage).
 */
@Command(name = "lockstep", mixinStandardHelpOptions = true, versionProvider = LockstepCommand.Version.class,
        description = "MPI-style message passing through a shared storage device.",
        subcommands = {ExampleCommand.class, RunCommand.class, ClasspathCommand.class, EmbspCommand.class, BenchCommand.class, ProvidersCommand.class, TckCommand.class,
                SoakCommand.class,
                CommandLine.HelpCommand.class})
public final class LockstepCommand {
    /** The option that shows the stack traces of failures (every subcommand has it). */
    static final String VERBOSE = "--verbose";

    @Option(names = VERBOSE, scope = ScopeType.INHERIT,
            description = "Show the stack trace of a failure (of this command and, for `run`, of every rank); without it a failure is one line.")
    boolean verbose;

    /** Exit code of a run that failed. */
    public static final int FAILED = 1;
    /** Exit code of a command line that could not be parsed (picocli's). */
    public static final int USAGE = CommandLine.ExitCode.USAGE;

    private LockstepCommand() {
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** Runs the command with {@code args}, writing to {@code out} and {@code err}; returns the exit code. */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine commandLine = commandLine();
        commandLine.setOut(out);
        commandLine.setErr(err);
        try {
            return commandLine.execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    private static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new LockstepCommand()).setExecutionExceptionHandler(new FailureReporter());
        // Everything after the program's name belongs to the program.
        commandLine.getSubcommands().get("run").setStopAtPositional(true);
        commandLine.getSubcommands().get("embsp").setStopAtPositional(true);
        return commandLine;
    }

    /** Whether {@value #VERBOSE} was given anywhere on the command line that {@code parseResult} holds. */
    static boolean verbose(ParseResult parseResult) {
        for (ParseResult p = parseResult; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption(VERBOSE)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Turns a failed run into one line on standard error and exit code 1 (the stack trace only with
     * {@value #VERBOSE}); anything else is a bug and keeps its trace.
     */
    private static final class FailureReporter implements IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception e, CommandLine command, ParseResult parseResult) throws Exception {
            if (!(e instanceof LockstepException) && !(e instanceof UncheckedIOException)) {
                throw e;
            }
            PrintWriter err = command.getErr();
            err.println(oneLine("lockstep " + command.getCommandName() + ": ", e));
            if (verbose(parseResult)) {
                e.printStackTrace(err);
            }
            return FAILED;
        }
    }

    /** {@code prefix}, the failure's message and its causes' and suppressed failures', on one line. */
    static String oneLine(String prefix, Throwable e) {
        StringBuilder line = new StringBuilder(prefix).append(e.getMessage());
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            line.append("; caused by ").append(describe(cause));
        }
        for (Throwable other : e.getSuppressed()) {
            line.append("; also ").append(describe(other));
        }
        return line.toString().replace('\n', ' ');
    }

    private static String describe(Throwable t) {
        return t instanceof LockstepException ? t.getMessage() : t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    /** The version of this jar, from its manifest (bnd writes Bundle-Version). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = LockstepCommand.class.getPackage().getImplementationVersion();
            if (version == null) {
                version = LockstepCommand.class.getModule().getDescriptor() == null ? null
                        : LockstepCommand.class.getModule().getDescriptor().rawVersion().orElse(null);
            }
            return new String[] {"lockstep " + (version == null ? "(development build)" : version)};
        }
    }
}
