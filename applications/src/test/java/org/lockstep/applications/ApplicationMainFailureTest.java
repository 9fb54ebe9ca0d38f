package org.lockstep.applications;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;

/** A typed failure of ApplicationMain started by another launcher (mpirun, srun) is one line on standard error. */
class ApplicationMainFailureTest {

    @Test
    void aTypedFailureIsOneLineUnlessTheStackTraceIsAskedFor() throws Exception {
        Result plain = run(List.of());
        assertEquals(1, plain.exitCode(), plain.err());
        List<String> lines = plain.err().lines().toList();
        assertEquals(1, lines.size(), plain.err());
        assertTrue(lines.getFirst().startsWith("ApplicationMain failed: LockstepException: [MPI_ERR_ARG]"), lines.getFirst());
        Result traced = run(List.of("-D" + Lockstep.STACK_TRACES_PROPERTY + "=true"));
        assertEquals(1, traced.exitCode(), traced.err());
        assertTrue(traced.err().lines().anyMatch(l -> l.startsWith("\tat ")), traced.err());
    }

    private record Result(int exitCode, String err) {
    }

    private static Result run(List<String> jvmOptions) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("--module-path", System.getProperty("jdk.module.path"),
                "--module", "org.lockstep.applications/" + ApplicationMain.class.getName(), "no-such-application"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().remove(LaunchEnvironment.LAUNCHER_PID);
        Process p = builder.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ApplicationMain did not end");
        return new Result(p.exitValue(), err);
    }
}
