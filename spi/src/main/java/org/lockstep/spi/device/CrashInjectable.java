package org.lockstep.spi.device;

/**
 * A device that can emulate power loss, so that a transport's crash consistency can be tested
 * without reflection (the TCK and the mailbox transport's tests use it). A device that implements
 * it also declares {@link DeviceCapability#CRASH_INJECTION}.
 *
 * <p>The model follows PMDK's pmreorder: at a crash point, every store since the last
 * {@link ExternalMemory#persist persist} of its bytes may be lost; with {@link PowerLoss#torn()},
 * each unpersisted 8-byte word independently survives or reverts (an aligned 8-byte store is
 * never torn itself: that is the one atomicity a transport may rely on), chosen by the seed, so
 * that a crash can leave any subset of the unpersisted words behind.
 *
 * <p>Crash points: {@link #armPowerLoss} makes the device lose power at the n-th next mutating
 * access (write, fill, store, compare-and-set, persist). That access and every later one throw
 * {@link DeviceException} (the machine is off) until {@link #powerOn()}; the device's bytes are
 * then what survived, as if the machine had rebooted.
 */
public interface CrashInjectable {
    /** Loses power now, as {@code loss} says; returns the bytes of unpersisted lines or words that reverted. */
    long powerLoss(PowerLoss loss);

    /**
     * Arms a power loss at the {@code countdown}-th next mutating access (1 = the very next one);
     * replaces an armed one. The access that strikes does not happen.
     */
    void armPowerLoss(long countdown, PowerLoss loss);

    /** Disarms an armed power loss that has not struck yet. */
    void disarm();

    /** Whether an armed power loss has struck and the device is off. */
    boolean poweredOff();

    /** Turns the device back on after a power loss: accesses work again, on what survived. */
    void powerOn();

    /** Mutating accesses so far: a test counts a fault-free run's accesses to choose crash points in it. */
    long mutatingAccesses();

    /**
     * How a power loss treats unpersisted data.
     *
     * @param torn whether unpersisted data is lost word by word (each 8-byte word survives or not,
     *             decided by {@code seed}); otherwise every unpersisted line reverts
     * @param seed chooses the surviving words when torn
     */
    record PowerLoss(boolean torn, long seed) {
        /** Every unpersisted line reverts. */
        public static final PowerLoss WHOLE_LINES = new PowerLoss(false, 0);

        /** Unpersisted 8-byte words survive or revert at random, by {@code seed}. */
        public static PowerLoss torn(long seed) {
            return new PowerLoss(true, seed);
        }
    }
}
