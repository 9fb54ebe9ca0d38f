package org.lockstep.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.applications.Application;
import org.lockstep.applications.Applications;

/**
 * {@code lockstep embsp} with processes: P real processors as P JVMs on this host (started like
 * {@code lockstep run}, provider {@code embsp}), each simulating v/P VPs, for the built-in
 * applications and for programs of one's own ({@code -cp app.jar Main}, {@code --module M/C}).
 * Processor 0 writes the whole run's simulator line; this prints it with the application's result.
 */
final class EmbspLaunch {
    private static final Pattern RESULT = Pattern.compile("^\\[0\\] (app=\\S+ size=\\d+ ranks=\\d+ digest=(-?\\d+) app_seconds=(\\S+).*check=ok)");

    private final EmbspCommand command;

    EmbspLaunch(EmbspCommand command) {
        this.command = command;
    }

    int run() throws IOException {
        PrintWriter err = command.spec.commandLine().getErr();
        PrintWriter out = command.spec.commandLine().getOut();
        Path stats = Files.createTempFile("lockstep-embsp-", ".stats");
        try {
            JobOptions job;
            RunCommand.Program program;
            Application app = null;
            try {
                if (command.module == null && Applications.isApplication(command.program)) {
                    app = Applications.create(command.program, command.arguments);
                    job = command.job(app, stats);
                } else if (command.contextSize == null) {
                    throw new LockstepException(ErrorClass.ARG, "--context-size (mu) is needed for a program of your own:"
                            + " the memory each VP may allocate");
                } else {
                    job = command.job(command.contextSize, stats);
                }
                program = command.module != null ? new RunCommand.Program(command.module, List.copyOf(command.arguments))
                        : RunCommand.program(command.program, command.arguments);
            } catch (LockstepException e) {
                return EmbspCommand.impossible(err, e);
            }
            Map<String, String> properties = new LinkedHashMap<>(job.properties());
            properties.put(Lockstep.PROVIDER_PROPERTY, EmbspCommand.PROVIDER);
            List<String> jvm = command.jvmOptions == null ? command.jvm().options() : command.jvmOptions;
            ProcessLauncher.Job launch = new ProcessLauncher.Job(command.processors, program.main(), program.arguments(),
                    Optional.empty(), properties, jvm, command.classPath, false, Duration.ofSeconds(10), false);
            ByteArrayOutputStream rankZero = new ByteArrayOutputStream();
            PrintStream tee = new PrintStream(new Tee(new WriterStream(out), rankZero), true, StandardCharsets.UTF_8);
            PrintStream errors = new PrintStream(new WriterStream(err), true, StandardCharsets.UTF_8);
            long start = System.nanoTime();
            ProcessLauncher.Outcome outcome = new ProcessLauncher(tee, errors).run(launch);
            errors.flush();
            double seconds = (System.nanoTime() - start) / 1e9;
            tee.flush();
            if (outcome.exitCode() != 0) {
                err.println("lockstep embsp: failed: real processor " + outcome.firstFailedRank() + " "
                        + ProcessLauncher.describeExit(outcome.exitCodes()[outcome.firstFailedRank()]));
                return outcome.exitCode();
            }
            String simulator = Files.readString(stats, StandardCharsets.UTF_8).trim();
            if (command.benchOut != null) {
                EmbspCommand.drawBench(command.benchOut, err);
            }
            err.flush();
            String result = "program=" + program.main();
            if (app != null) {
                Matcher m = null;
                for (String line : rankZero.toString(StandardCharsets.UTF_8).split("\n")) {
                    Matcher candidate = RESULT.matcher(line.trim());
                    if (candidate.find()) {
                        m = candidate;
                    }
                }
                if (m == null) {
                    err.println("lockstep embsp: " + app.name() + " printed no result line");
                    return 1;
                }
                double appSeconds = Double.parseDouble(m.group(3));
                result = String.format(Locale.ROOT, "app=%s size=%d digest=%s check=ok app_seconds=%.3f mb_per_s=%.1f %s", app.name(),
                        app.size(), m.group(2), appSeconds, app.dataBytes() / appSeconds / 1e6,
                        EmbspCommand.ioPerInput(simulator, app.dataBytes()));
            }
            out.println(String.format(Locale.ROOT, "%s %s launch_seconds=%.3f", simulator, result, seconds));
            return 0;
        } finally {
            Files.deleteIfExists(stats);
        }
    }

    /** The lines the processes print, into the command's own writer. */
    private static final class WriterStream extends OutputStream {
        private final PrintWriter writer;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        WriterStream(PrintWriter writer) {
            this.writer = writer;
        }

        @Override
        public synchronized void write(int x) {
            line.write(x);
            if (x == '\n') {
                flush();
            }
        }

        @Override
        public synchronized void flush() {
            writer.print(line.toString(StandardCharsets.UTF_8));
            writer.flush();
            line.reset();
        }
    }

    /** Writes to both streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int x) throws IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            a.write(bytes, offset, length);
            b.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }
}
