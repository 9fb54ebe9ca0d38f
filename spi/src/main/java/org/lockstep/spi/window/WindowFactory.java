package org.lockstep.spi.window;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Window;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * How a provider makes windows: {@code AbstractCommunicator}'s window templates check the
 * arguments and call it. {@link #POINT_TO_POINT}, the default, works over any communicator; a
 * provider whose ranks share memory makes windows of that memory instead.
 */
public interface WindowFactory {
    /** Collective: a window of {@code byteSize} new bytes at this rank. */
    Window allocate(Communicator comm, long byteSize, int dispUnit, Info hints);

    /** Collective: a window whose parts every rank loads and stores directly. */
    Window allocateShared(Communicator comm, long byteSize, int dispUnit, Info hints);

    /** Collective: a window over {@code base}, which stays the caller's. */
    Window create(Communicator comm, MemorySegment base, int dispUnit, Info hints);

    /**
     * Windows of memory from {@link Communicator#allocate} (or the caller's), moved by messages
     * ({@link PointToPointWindow}); a shared window only on one rank, whose part is trivially shared.
     */
    WindowFactory POINT_TO_POINT = pointToPoint(IdleStrategy::new);

    /** {@link #POINT_TO_POINT} whose windows' polling waits back off as {@code backOff}'s strategies do. */
    static WindowFactory pointToPoint(Supplier<IdleStrategy> backOff) {
        return new WindowFactory() {
            @Override
            public Window allocate(Communicator comm, long byteSize, int dispUnit, Info hints) {
                return new PointToPointWindow(comm, comm.allocate(byteSize), dispUnit, true, backOff);
            }

            @Override
            public Window allocateShared(Communicator comm, long byteSize, int dispUnit, Info hints) {
                if (comm.size() > 1) {
                    throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, "the ranks of " + comm.getClass().getSimpleName()
                            + " do not share memory: a shared window needs a provider whose ranks do (the mailbox transport)");
                }
                return allocate(comm, byteSize, dispUnit, hints);
            }

            @Override
            public Window create(Communicator comm, MemorySegment base, int dispUnit, Info hints) {
                return new PointToPointWindow(comm, base, dispUnit, false, backOff);
            }
        };
    }

    /** Checks the arguments every window constructor shares. */
    static void checkArguments(long byteSize, int dispUnit, Info hints) {
        if (byteSize < 0) {
            throw new LockstepException(ErrorClass.ARG, "a window of " + byteSize + " bytes");
        }
        if (dispUnit < 1) {
            throw new LockstepException(ErrorClass.ARG, "displacement unit " + dispUnit + " is below 1 byte");
        }
        if (hints == null) {
            throw new LockstepException(ErrorClass.ARG, "hints are null (Info.EMPTY for none)");
        }
    }
}
