package org.lockstep.spi.messaging;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The back-off policies: which one a host's rank count gets, and what a policy may say. */
class IdleStrategyTest {
    @Test
    void ranksThatFitTheCoresSpinAndMoreRanksThanCoresYieldAtOnce() {
        int cpus = IdleStrategy.Policy.HOST_CPUS;
        assertSame(IdleStrategy.Policy.DEDICATED, IdleStrategy.Policy.forRanksOnThisHost(1));
        assertSame(IdleStrategy.Policy.DEDICATED, IdleStrategy.Policy.forRanksOnThisHost(cpus));
        assertSame(IdleStrategy.Policy.OVERSUBSCRIBED, IdleStrategy.Policy.forRanksOnThisHost(cpus + 1));
        assertTrue(IdleStrategy.Policy.OVERSUBSCRIBED.spinNanos() == 0
                && IdleStrategy.Policy.OVERSUBSCRIBED.pausesPerClockRead() < IdleStrategy.Policy.DEDICATED.pausesPerClockRead(),
                "an oversubscribed wait yields after a few pauses");
    }

    @Test
    void aPolicyMustSpinNoLongerThanItYieldsAndPauseAtLeastOnce() {
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy.Policy(-1, 10, 8));
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy.Policy(20, 10, 8));
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy.Policy(0, 10, 0));
    }
}
