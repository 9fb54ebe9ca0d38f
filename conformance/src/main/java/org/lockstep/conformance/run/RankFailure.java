package org.lockstep.conformance.run;

/**
 * A rank whose body (or end-of-run exchange) threw.
 *
 * @param rank  the rank
 * @param cause what it threw
 */
public record RankFailure(int rank, Throwable cause) {
    /** Whether this failure only reports that another rank failed first. */
    public boolean isConsequence() {
        return cause instanceof org.lockstep.api.ProcessFailedException || cause instanceof RunAborted
                || cause instanceof LaunchedRun.RemoteRankFailure remote && remote.consequence();
    }

    @Override
    public String toString() {
        return "rank " + rank + ": " + describe(cause);
    }

    static String describe(Throwable t) {
        String message = t.getMessage();
        if (t instanceof LaunchedRun.RemoteRankFailure) {
            return message; // described by its own process
        }
        return t instanceof AssertionError && message != null ? message : t.getClass().getSimpleName() + ": " + message;
    }
}
