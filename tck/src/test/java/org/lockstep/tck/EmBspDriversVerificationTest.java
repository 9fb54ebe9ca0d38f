package org.lockstep.tck;

import org.junit.jupiter.api.Nested;
import org.lockstep.api.JobOptions;

/**
 * The kit against the EM-BSP simulator once per I/O driver and once per thread driver besides the
 * defaults ({@code sync} I/O, {@code virtual} threads) that {@link EmBspProviderVerificationTest}
 * covers: a rule that holds only for one driver would otherwise pass unnoticed.
 */
class EmBspDriversVerificationTest {
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
    }

    @Nested
    class SequentialThreads extends EmBspProviderVerificationTest {
        @Override
        protected JobOptions jobOptions(int ranks) {
            return super.jobOptions(ranks).with(THREADS, "sequential");
        }
    }
}
