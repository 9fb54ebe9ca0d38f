package mpi;

import java.util.Optional;

import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A non-blocking collective file access whose data this rank has moved already: it completes,
 * with the access's status, when the barrier the ranks started with it completes.
 */
final class FileCollectiveRequest implements Request {
    private final Request barrier;
    private final Status status;

    FileCollectiveRequest(Request barrier, Status status) {
        this.barrier = barrier;
        this.status = status;
    }

    @Override
    public Status await() {
        barrier.await();
        return status;
    }

    @Override
    public Optional<Status> test() {
        return barrier.test().map(done -> status);
    }

    @Override
    public boolean isComplete() {
        return barrier.isComplete();
    }

    @Override
    public void cancel() {
        // the data has moved; a collective's synchronisation is not cancelled (MPI 4.1 §3.8.4)
    }
}
