package mpi;

/** How a wait over several requests idles between rounds of tests: spin briefly, then yield. */
final class Idle {
    private static final int SPINS = 64;
    private int rounds;

    void idle() {
        if (++rounds < SPINS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }
}
