/**
 * JMH benchmarks of the mailbox transport's latency path. White-box: they drive impl-pcie's slot
 * ring and layout directly, which that provider module exports to this module only.
 * Run on the class path by tools/bench/jmh.sh (JMH finds its generated classes there).
 */
// JMH is an automatic module (named in the manifest by repackaged/jmh); its Blackhole is in the benchmarks' public signatures
@SuppressWarnings("requires-transitive-automatic")
module org.lockstep.bench {
    requires org.lockstep.api;
    requires org.lockstep.spi;
    requires org.lockstep.pcie;
    requires transitive org.openjdk.jmh;
    // CpuPerMessage reads its thread's CPU time and allocated bytes
    requires jdk.management;

    exports org.lockstep.bench;
}
