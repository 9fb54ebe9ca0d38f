package org.lockstep.tck.mutants;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/**
 * Breakages of an external-memory provider made from outside it. The breakages of its I/O (swaps
 * written twice, contexts kept in heap memory) are the EM-BSP simulator's own fault-injection
 * hooks ({@link Mutant.Where#PROVIDER_FAULT}).
 */
final class ExternalMemoryBreakages {
    private ExternalMemoryBreakages() {
    }

    /** exscan folds each rank's own value in: an inclusive scan where an exclusive one was asked for. */
    static final class ExscanInclusive {
        private final Communicator real;

        ExscanInclusive(Communicator real) {
            this.real = real;
        }

        public void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
            real.scan(send, recv, count, type, op);
        }
    }
}
