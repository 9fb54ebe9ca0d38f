/**
 * The {@code lockstep} command: the example job, benchmarks, the list of installed providers, and
 * the conformance kit. Built on the application API (and the kit's runner); providers are found at run time.
 */
module org.lockstep.tools {
    requires org.lockstep.api;
    requires org.lockstep.tck;
    // `lockstep run` and `lockstep embsp` run the applications by name
    requires org.lockstep.applications;
    // `lockstep run` gives programs of the Open MPI Java bindings their mpi package; `lockstep classpath` names its jar
    requires org.lockstep.compat.mpi;
    requires info.picocli;
    requires org.hdrhistogram;
    // `lockstep run --jfr` sums up the recording it wrote
    requires jdk.jfr;
    // `lockstep embsp` sizes its JVM from --memory, by default half of physical memory
    requires jdk.management;

    // picocli sets the annotated option fields reflectively.
    opens org.lockstep.tools to info.picocli;
}
