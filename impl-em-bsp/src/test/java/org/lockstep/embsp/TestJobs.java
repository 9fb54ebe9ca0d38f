package org.lockstep.embsp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.lockstep.api.JobOptions;

/** Job options for tests: small contexts and blocks, disks in a directory under target/. */
final class TestJobs {
    private TestJobs() {
    }

    /** The directory for disk files (created), from the build or a temp directory. */
    static Path diskDirectory() {
        String configured = System.getProperty("lockstep.embsp.test.dir");
        try {
            Path dir = configured != null ? Path.of(configured) : Path.of(System.getProperty("java.io.tmpdir"), "lockstep-embsp-tests");
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** v VPs on k cores with contexts of μ bytes and blocks of B. */
    static JobOptions job(int v, int k, long mu, long block) {
        return JobOptions.ofRanks(v)
                .with(EmBspOptions.CORES, Integer.toString(k))
                .with(EmBspOptions.CONTEXT_SIZE, Long.toString(mu))
                .with(EmBspOptions.BLOCK_SIZE, Long.toString(block))
                .with(EmBspOptions.DISKS, diskDirectory().toString())
                .with(EmBspOptions.MEMORY, Long.toString(256L << 20))
                .with(EmBspOptions.BOUNDARY_CACHE, Long.toString(8L << 20));
    }

    /** The same job with {@code d} disk files in the test directory. */
    static JobOptions withDisks(JobOptions job, int d) {
        StringBuilder paths = new StringBuilder();
        for (int i = 0; i < d; i++) {
            paths.append(i == 0 ? "" : ",").append(diskDirectory());
        }
        return job.with(EmBspOptions.DISKS, paths.toString());
    }
}
