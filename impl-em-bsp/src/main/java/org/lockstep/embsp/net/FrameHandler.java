package org.lockstep.embsp.net;

import org.lockstep.api.LockstepException;

/** What the {@link Interconnect}'s agent does with what arrives; called on the agent's thread only. */
public interface FrameHandler {
    /** A frame from another real processor; its payload is valid only during the call. */
    void handle(Frame frame);

    /** The network failed (a real processor died, or sent garbage): nothing more will arrive. */
    void failed(LockstepException failure);
}
