/**
 * Parallel applications written once against the Lockstep API — CGM sample sort of 64-bit keys,
 * prefix sums and list ranking — that run unchanged as threads, as launched processes and under
 * EM-BSP simulation, each checking its own output. {@code lockstep run} and {@code lockstep embsp}
 * run them by name.
 */
module org.lockstep.applications {
    requires transitive org.lockstep.api;
    requires info.picocli;

    exports org.lockstep.applications;

    // picocli sets the applications' option fields reflectively.
    opens org.lockstep.applications to info.picocli;
}
