package org.lockstep.pcie.mailbox;

import java.time.Duration;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.JobOptions;

/**
 * How the transport treats failures when the job checkpoints (and which ones the kit's self-test injects).
 *
 * @param restartOnFailure whether a dead peer is expected back as a new incarnation
 *                         ({@value Checkpoints#RESTART_ON_FAILURE_PROPERTY}): requests that involve it
 *                         wait for it, up to {@code restartTimeout}, instead of failing at once
 * @param restartTimeout   how long a dead peer has to come back before it counts as failed
 * @param logFullWait      how long a send waits for receivers to checkpoint (and so release log
 *                         space) before it fails with {@code NO_MEM}
 * @param faults           deliberate breakages of the message log, for the kit's self-test only
 *                         ({@link TransportFaults#PROPERTY}; none by default)
 */
record RestartPolicy(boolean restartOnFailure, Duration restartTimeout, Duration logFullWait, TransportFaults faults) {
    /** Job property: how long a send waits on a full log, in milliseconds (default 10000). */
    static final String LOG_FULL_WAIT_PROPERTY = "lockstep.checkpoint.fullWaitMillis";
    static final RestartPolicy DEFAULT = new RestartPolicy(false, Duration.ofSeconds(30), Duration.ofSeconds(10), TransportFaults.NONE);

    static RestartPolicy from(JobOptions options) {
        return new RestartPolicy(Boolean.parseBoolean(options.property(Checkpoints.RESTART_ON_FAILURE_PROPERTY).orElse("false")),
                Duration.ofMillis(options.longProperty(Checkpoints.RESTART_TIMEOUT_PROPERTY, DEFAULT.restartTimeout.toMillis())),
                Duration.ofMillis(options.longProperty(LOG_FULL_WAIT_PROPERTY, DEFAULT.logFullWait.toMillis())),
                TransportFaults.from(options));
    }
}
