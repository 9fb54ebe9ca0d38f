package org.lockstep.embsp.sim;

import org.lockstep.embsp.io.IoMeter;

/**
 * Whoever moves message bytes through the {@link DataMover}: a VP, or a real processor's network
 * agent delivering what arrived from another processor. It brings its own aligned staging
 * buffer and the meters its I/O counts on.
 */
public interface IoActor {
    /** The partition whose staging slots this actor may use (it holds them, nobody else). */
    Partition partition();

    /** The meters its I/O counts on now. */
    org.lockstep.embsp.io.IoMeter[] meters();

    /** An actor with {@code staging}'s slots, counting on {@code meters}. */
    static IoActor of(Partition staging, IoMeter... meters) {
        return new IoActor() {
            @Override
            public Partition partition() {
                return staging;
            }

            @Override
            public IoMeter[] meters() {
                return meters;
            }
        };
    }
}
