package org.lockstep.conformance;

import java.util.Objects;

/**
 * The test a rule is adapted from: a suite and a test in it. The rule re-expresses the property
 * that test checks, in this kit's own code; nothing is copied.
 *
 * @param suite the suite
 * @param test  the test's file or name in that suite, e.g. {@code test/mpi/pt2pt/sendflood.c}
 */
public record Origin(Suite suite, String test) {
    /** The suites rules are adapted from. */
    public enum Suite {
        MPICH("MPICH test suite"),
        IBM("IBM test suite, as ported in open-mpi/ompi-java-test"),
        MPI4PY("mpi4py test suite"),
        IMB("Intel MPI Benchmarks, check mode"),
        MPI_STANDARD("MPI 4.1 standard"),
        SEED("Lockstep seed 001 (the mailbox patent)");

        private final String title;

        Suite(String title) {
            this.title = title;
        }

        public String title() {
            return title;
        }
    }

    public Origin {
        Objects.requireNonNull(suite, "suite");
        if (test == null || test.isBlank()) {
            throw new IllegalArgumentException("an origin names its test");
        }
    }

    public static Origin mpich(String file) {
        return new Origin(Suite.MPICH, "test/mpi/" + file);
    }

    public static Origin ibm(String file) {
        return new Origin(Suite.IBM, file);
    }

    public static Origin mpi4py(String test) {
        return new Origin(Suite.MPI4PY, test);
    }

    public static Origin imb(String benchmark) {
        return new Origin(Suite.IMB, benchmark);
    }

    public static Origin standard(String section) {
        return new Origin(Suite.MPI_STANDARD, section);
    }

    public static Origin seed(String what) {
        return new Origin(Suite.SEED, what);
    }

    @Override
    public String toString() {
        return switch (suite) {
            case MPICH -> "MPICH " + test;
            case IBM -> "IBM " + test + " (ompi-java-test)";
            case MPI4PY -> "mpi4py " + test;
            case IMB -> "IMB " + test + " check mode";
            case MPI_STANDARD -> "MPI 4.1 " + test;
            case SEED -> "seed 001: " + test;
        };
    }
}
