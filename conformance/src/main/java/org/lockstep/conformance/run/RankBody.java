package org.lockstep.conformance.run;

/** What one rank of a world run does; throwing fails the run. */
@FunctionalInterface
public interface RankBody {
    void run(RankContext rank) throws Exception;
}
