package org.lockstep.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A non-blocking operation in flight ({@code MPI_Request}). Completing it with {@link #await()} or
 * {@link #test()} returns its {@link Status}; an operation that failed throws a
 * {@link LockstepException} from both. A truncated receive throws {@link TruncationException},
 * which carries the status.
 *
 * <p>The static {@code waitAll/waitAny/waitSome/testAll/testAny} methods are the multi-completion
 * calls of MPI; they make progress by testing each request, so requests from any provider mix.
 */
public interface Request {
    /** What {@link #waitAny} returns when every request given is {@code null} or inactive. */
    int UNDEFINED = -32766;

    /** Blocks until the operation completes ({@code MPI_Wait}). */
    Status await();

    /** Makes progress and returns the status if the operation has completed ({@code MPI_Test}). */
    Optional<Status> test();

    /** Whether the operation has completed, without making progress. */
    boolean isComplete();

    /**
     * Asks for cancellation ({@code MPI_Cancel}): a receive that has not matched is cancelled; a
     * send or a matched receive completes normally. Either way the request must still be completed.
     */
    void cancel();

    /** Waits for all requests; returns their statuses in order. Null entries are skipped (status null). */
    static Status[] waitAll(Request... requests) {
        Objects.requireNonNull(requests, "requests");
        Status[] statuses = new Status[requests.length];
        LockstepException first = null;
        for (int i = 0; i < requests.length; i++) {
            if (requests[i] == null) {
                continue;
            }
            try {
                statuses[i] = requests[i].await();
            } catch (LockstepException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
        return statuses;
    }

    /** Waits until one request completes and returns its index, or {@link #UNDEFINED} if none is given. */
    static int waitAny(Request... requests) {
        Objects.requireNonNull(requests, "requests");
        Backoff idle = new Backoff();
        while (true) {
            int index = testAny(requests);
            if (index != UNDEFINED || allNull(requests)) {
                return index;
            }
            idle.idle();
        }
    }

    /** Waits until at least one request completes; returns the indices of all that have completed. */
    static int[] waitSome(Request... requests) {
        Objects.requireNonNull(requests, "requests");
        if (allNull(requests)) {
            return new int[0];
        }
        Backoff idle = new Backoff();
        while (true) {
            int[] done = testSome(requests);
            if (done.length > 0) {
                return done;
            }
            idle.idle();
        }
    }

    /** Tests every request; returns all statuses if every one has completed, else empty. */
    static Optional<Status[]> testAll(Request... requests) {
        Objects.requireNonNull(requests, "requests");
        boolean all = true;
        for (Request r : requests) {
            if (r != null && r.test().isEmpty()) {
                all = false;
            }
        }
        return all ? Optional.of(waitAll(requests)) : Optional.empty();
    }

    /** Tests the requests in order; returns the index of the first that has completed, or {@link #UNDEFINED}. */
    static int testAny(Request... requests) {
        Objects.requireNonNull(requests, "requests");
        for (int i = 0; i < requests.length; i++) {
            if (requests[i] != null && requests[i].test().isPresent()) {
                return i;
            }
        }
        return UNDEFINED;
    }

    /** Tests every request; returns the indices of those that have completed. */
    static int[] testSome(Request... requests) {
        Objects.requireNonNull(requests, "requests");
        List<Integer> done = new ArrayList<>();
        for (int i = 0; i < requests.length; i++) {
            if (requests[i] != null && requests[i].test().isPresent()) {
                done.add(i);
            }
        }
        return done.stream().mapToInt(Integer::intValue).toArray();
    }

    private static boolean allNull(Request[] requests) {
        for (Request r : requests) {
            if (r != null) {
                return false;
            }
        }
        return true;
    }
}
