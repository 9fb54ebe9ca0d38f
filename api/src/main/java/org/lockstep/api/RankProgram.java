package org.lockstep.api;

/**
 * A parallel program: the code every rank runs, given its world communicator. The same program
 * runs unchanged as threads of one JVM, as separate processes over a shared device, or as
 * virtual processors of an EM-BSP simulation.
 */
@FunctionalInterface
public interface RankProgram {
    void run(Communicator world) throws Exception;
}
