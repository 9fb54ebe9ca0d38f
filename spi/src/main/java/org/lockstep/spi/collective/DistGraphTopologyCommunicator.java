package org.lockstep.spi.collective;

import org.lockstep.api.DistGraphCommunicator;
import org.lockstep.api.Topology;
import org.lockstep.spi.topology.Neighborhood;

/** A provider's communicator with a distributed graph: the edges into and out of this rank, in the order given or gathered. */
final class DistGraphTopologyCommunicator extends TopologyCommunicator implements DistGraphCommunicator {
    private final Neighbors edges;

    DistGraphTopologyCommunicator(AbstractCommunicator base, AbstractCommunicator channel, Neighbors edges) {
        super(base, channel, Topology.DIST_GRAPH, Neighborhood.inListOrder(edges.sources(), edges.destinations()));
        this.edges = edges;
    }

    @Override
    TopologyCommunicator over(AbstractCommunicator duplicate, AbstractCommunicator channel) {
        return new DistGraphTopologyCommunicator(duplicate, channel, edges);
    }

    @Override
    public NeighborCounts neighborsCount() {
        return withHandler(() -> {
            checkOpen();
            return new NeighborCounts(edges.sources().length, edges.destinations().length, edges.sourceWeights() != null);
        });
    }

    @Override
    public Neighbors neighbors() {
        return withHandler(() -> {
            checkOpen();
            return new Neighbors(edges.sources().clone(), copy(edges.sourceWeights()), edges.destinations().clone(),
                    copy(edges.destinationWeights()));
        });
    }

    private static int[] copy(int[] a) {
        return a == null ? null : a.clone();
    }
}
