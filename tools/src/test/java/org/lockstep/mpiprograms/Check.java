package org.lockstep.mpiprograms;

import java.util.Arrays;

import mpi.MPI;
import mpi.MPIException;

/** The programs' assertions: a failed check throws, so the rank fails and the job exits non-zero. */
final class Check {
    private Check() {
    }

    static void that(boolean condition, String what) throws MPIException {
        if (!condition) {
            throw new AssertionError("rank " + MPI.COMM_WORLD.getRank() + ": " + what);
        }
    }

    static void equal(long expected, long actual, String what) throws MPIException {
        that(expected == actual, what + ": expected " + expected + ", got " + actual);
    }

    static void equal(double expected, double actual, String what) throws MPIException {
        that(expected == actual, what + ": expected " + expected + ", got " + actual);
    }

    static void equal(int[] expected, int[] actual, String what) throws MPIException {
        that(Arrays.equals(expected, actual), what + ": expected " + Arrays.toString(expected) + ", got " + Arrays.toString(actual));
    }

    /** Runs {@code call}, which must throw an MPIException of class {@code errorClass} whose message names {@code name}. */
    static void fails(int errorClass, String name, Call call) throws MPIException {
        try {
            call.run();
        } catch (MPIException e) {
            equal(errorClass, e.getErrorClass(), "error class of " + name + " (" + e.getMessage() + ")");
            that(e.getMessage().contains(name), "the message names " + name + ": " + e.getMessage());
            return;
        }
        that(false, name + " should have failed with error class " + errorClass);
    }

    @FunctionalInterface
    interface Call {
        void run() throws MPIException;
    }

    /** The last line of every program: rank 0 says the family passed. */
    static void passed(String family) throws MPIException {
        MPI.COMM_WORLD.barrier();
        if (MPI.COMM_WORLD.getRank() == 0) {
            System.out.println(family + " passed on " + MPI.COMM_WORLD.getSize() + " ranks");
        }
    }
}
