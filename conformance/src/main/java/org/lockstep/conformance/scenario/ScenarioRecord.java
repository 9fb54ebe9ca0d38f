package org.lockstep.conformance.scenario;

import java.util.List;
import java.util.Optional;

import org.lockstep.api.Status;
import org.lockstep.conformance.run.RunResult;

/**
 * What happened when a scenario ran: every send, receive and cancel with its times
 * ({@link System#nanoTime()}), and how the run ended.
 *
 * @param scenario the scenario
 * @param sends    one per message
 * @param receives one per receive step that completed
 * @param cancels  one per cancel step that completed
 * @param run      how the world run ended
 */
public record ScenarioRecord(Scenario scenario, List<SendRecord> sends, List<ReceiveRecord> receives,
                             List<CancelRecord> cancels, RunResult run) {
    /**
     * A send.
     *
     * @param message        its message id
     * @param startNanos     before {@code isend}/{@code issend}
     * @param completedNanos when it was first seen complete (-1 if never)
     * @param completedAtOnce whether a synchronous send was already complete right after it was started
     */
    public record SendRecord(int message, long startNanos, long completedNanos, boolean completedAtOnce) {
    }

    /**
     * A completed receive.
     *
     * @param rank          the receiving rank
     * @param step          its step
     * @param spec          what it asked for (after a probe: the source and tag the probe reported)
     * @param probed        what the probe before it reported
     * @param status        its status (of a truncated receive: the truncation's)
     * @param truncated     whether it completed with a truncation error
     * @param messageBytes  the whole message's length a truncation reported (-1 otherwise)
     * @param data          the bytes it delivered
     * @param untouchedFrom the first buffer byte after the delivered ones that was changed, or -1 if none was
     * @param postNanos     before the receive (or its probe) was made
     * @param completeNanos when it was seen complete
     */
    public record ReceiveRecord(int rank, Step.Receive step, ReceiveSpec spec, Optional<Status> probed, Status status,
                                boolean truncated, long messageBytes, byte[] data, long untouchedFrom, long postNanos,
                                long completeNanos) {
    }

    /**
     * A cancelled receive.
     *
     * @param rank   the rank
     * @param spec   what it asked for
     * @param status its status, or null if it failed
     * @param error  its error, if it failed
     */
    public record CancelRecord(int rank, ReceiveSpec spec, Status status, String error) {
    }
}
