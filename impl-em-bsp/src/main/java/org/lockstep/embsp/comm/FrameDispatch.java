package org.lockstep.embsp.comm;

import org.lockstep.api.LockstepException;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameHandler;

/**
 * The agent's side of the collectives (point-to-point frames and answers to pulls go straight to
 * theirs): finds the group and the call a frame belongs to (making
 * the call here if no VP here has entered it yet; parking the frame if its group has not formed
 * here yet) and hands it to the family that speaks its kind.
 */
final class FrameDispatch implements FrameHandler {
    private final CommWorld world;
    private final EmCollectives collectives;

    FrameDispatch(CommWorld world, EmCollectives collectives) {
        this.world = world;
        this.collectives = collectives;
    }

    @Override
    public void handle(Frame frame) {
        switch (frame.kind()) {
            case PULLED -> {
                world.remote().pulled(frame);
                return;
            }
            case P2P_EAGER, P2P_ANNOUNCE, P2P_PULL -> {
                world.elsewhere().handle(frame);
                return;
            }
            default -> {
            }
        }
        Group group;
        CallState call;
        world.scheduler().lock().lock();
        try {
            group = world.groupOrPark(frame.group(), frame);
            if (group == null) {
                return;
            }
            call = group.calls.computeIfAbsent(frame.call(), s -> new CallState(null, s, group, world.options().blockSize()));
        } finally {
            world.scheduler().lock().unlock();
        }
        collectives.spanning().handle(group, call, frame);
    }

    @Override
    public void failed(LockstepException failure) {
        world.scheduler().abort(failure);
    }
}
