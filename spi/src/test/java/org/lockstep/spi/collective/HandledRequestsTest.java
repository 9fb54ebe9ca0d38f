package org.lockstep.spi.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.ErrorHandler;
import org.lockstep.api.FatalLockstepError;
import org.lockstep.api.LockstepException;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/** What reaches a communicator's error handler from the requests it started, and how often. */
class HandledRequestsTest {
    private static final LockstepException STARTED_TWICE = new LockstepException(ErrorClass.REQUEST, "started twice");

    /** A communicator that answers rank and size only: the handler's first argument. */
    private static Communicator owner() {
        return (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(), new Class<?>[] {Communicator.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "rank" -> 0;
                    case "size" -> 1;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** A partitioned request whose start, pready and await fail. */
    private static final class Failing implements PartitionedRequest {
        @Override
        public void start() {
            throw STARTED_TWICE;
        }

        @Override
        public boolean isActive() {
            return true;
        }

        @Override
        public void free() {
        }

        @Override
        public int partitions() {
            return 2;
        }

        @Override
        public void pready(int partition) {
            throw new LockstepException(ErrorClass.ARG, "partition " + partition);
        }

        @Override
        public boolean parrived(int partition) {
            return false;
        }

        @Override
        public Status await() {
            throw new LockstepException(ErrorClass.TRUNCATE, "longer");
        }

        @Override
        public Optional<Status> test() {
            return Optional.empty();
        }

        @Override
        public boolean isComplete() {
            return false;
        }

        @Override
        public void cancel() {
        }
    }

    @Test
    void underReturnRequestsAreNotWrappedAndUnderAHandlerEachErrorIsHandedOverOnce() {
        ErrorHandling errors = new ErrorHandling(owner());
        Failing request = new Failing();
        assertSame(request, errors.handled((PartitionedRequest) request), "the default costs no wrapper");
        List<ErrorClass> seen = new ArrayList<>();
        errors.set((communicator, error) -> seen.add(error.errorClass()));
        PartitionedRequest handled = errors.handled((PartitionedRequest) request);
        assertSame(STARTED_TWICE, assertThrows(LockstepException.class, handled::start));
        assertEquals(ErrorClass.ARG, assertThrows(LockstepException.class, () -> handled.pready(1)).errorClass());
        assertEquals(ErrorClass.TRUNCATE, assertThrows(LockstepException.class, handled::await).errorClass());
        assertEquals(List.of(ErrorClass.REQUEST, ErrorClass.ARG, ErrorClass.TRUNCATE), seen);
        assertThrows(LockstepException.class, () -> {
            try {
                handled.start();
            } catch (LockstepException again) {
                throw errors.failed(again); // the template around a nested call hands the same error over
            }
        });
        assertEquals(4, seen.size(), "an error handed over inside a call is not handed over again by the call around it: " + seen);
        assertSame(STARTED_TWICE, assertThrows(LockstepException.class, handled::start));
        assertEquals(5, seen.size(), "the same stored failure thrown by the next call reaches the handler again: " + seen);
        assertEquals(2, handled.partitions());
    }

    @Test
    void fatalTurnsTheErrorIntoAnErrorThatCarriesItsClass() {
        ErrorHandling errors = new ErrorHandling(owner());
        errors.set(ErrorHandler.FATAL);
        PersistentRequest handled = errors.handled((PersistentRequest) new Failing());
        FatalLockstepError fatal = assertThrows(FatalLockstepError.class, handled::start);
        assertEquals(ErrorClass.REQUEST, fatal.errorClass());
        assertSame(STARTED_TWICE, fatal.getCause());
        Request plain = errors.handled((Request) new Failing());
        assertInstanceOf(HandledRequests.OfRequest.class, plain);
        assertEquals(ErrorClass.ARG, assertThrows(LockstepException.class, () -> errors.set(null)).errorClass());
    }
}
