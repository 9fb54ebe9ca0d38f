package org.lockstep.tck;

import org.junit.jupiter.api.Nested;
import org.lockstep.api.JobOptions;
import org.lockstep.conformance.Capabilities;

/**
 * The kit against the EM-BSP simulator once per I/O driver and once per thread driver besides the
 * defaults ({@code sync} I/O, {@code virtual} threads) that {@link EmBspProviderVerificationTest}
 * covers: a rule that holds only for one driver would otherwise pass unnoticed. The EMBSP rules run
 * for each I/O driver only.
 */
class EmBspDriversVerificationTest {
    /**
     * The EMBSP rules (about I/O, run on two real processors: the slowest of the kit) run once per I/O
     * driver; the thread drivers' runs leave them out.
     */
    static Capabilities withoutExternalMemory() {
        return Capabilities.of(8);
    }

    private static final String IO = "lockstep.embsp.io";
    private static final String THREADS = "lockstep.embsp.threads";

    @Nested
    class AsyncIo extends EmBspProviderVerificationTest {
        @Override
        protected JobOptions jobOptions(int ranks) {
            return super.jobOptions(ranks).with(IO, "async");
        }
    }

    @Nested
    class MappedIo extends EmBspProviderVerificationTest {
        @Override
        protected JobOptions jobOptions(int ranks) {
            return super.jobOptions(ranks).with(IO, "mmap");
        }
    }

    @Nested
    class PlatformThreads extends EmBspProviderVerificationTest {
        @Override
        protected JobOptions jobOptions(int ranks) {
            return super.jobOptions(ranks).with(THREADS, "platform");
        }

        @Override
        protected Capabilities capabilities() {
            return withoutExternalMemory();
        }
    }

    @Nested
    class SequentialThreads extends EmBspProviderVerificationTest {
        @Override
        protected JobOptions jobOptions(int ranks) {
            return super.jobOptions(ranks).with(THREADS, "sequential");
        }

        @Override
        protected Capabilities capabilities() {
            return withoutExternalMemory();
        }
    }
}
