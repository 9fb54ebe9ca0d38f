package org.lockstep.tck.mutants;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.DistGraphCommunicator;
import org.lockstep.api.Info;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * Breakages of process topologies (kit group TOPO): most break the communicator a topology
 * constructor returns, through a world communicator whose {@code createCart} wraps the real grid.
 */
final class TopologyBreakages {
    private TopologyBreakages() {
    }

    /** A world whose Cartesian grids are the real ones with the calls of the breakage {@code broken} makes for each broken. */
    static final class BrokenGrids {
        private final Communicator real;
        private final Function<CartesianCommunicator, Object> broken;

        BrokenGrids(Communicator real, Function<CartesianCommunicator, Object> broken) {
            this.real = real;
            this.broken = broken;
        }

        public CartesianCommunicator createCart(int[] dims, boolean[] periods, boolean reorder) {
            CartesianCommunicator grid = real.createCart(dims, periods, reorder);
            return grid == null ? null : Forwarders.forward(CartesianCommunicator.class, grid, broken.apply(grid));
        }
    }

    /** coords(rank) numbers the grid column-major (the first dimension varies fastest). */
    static final class ColumnMajorCoords {
        private final CartesianCommunicator grid;

        ColumnMajorCoords(CartesianCommunicator grid) {
            this.grid = grid;
        }

        public int[] coords(int rank) {
            int[] dims = grid.dims();
            int[] coords = new int[dims.length];
            for (int d = 0; d < dims.length; d++) {
                coords[d] = rank % dims[d];
                rank /= dims[d];
            }
            return coords;
        }
    }

    /** shift names the destination as the source and the source as the destination. */
    static final class ShiftSwapped {
        private final CartesianCommunicator grid;

        ShiftSwapped(CartesianCommunicator grid) {
            this.grid = grid;
        }

        public CartesianCommunicator.Shift shift(int direction, int displacement) {
            CartesianCommunicator.Shift right = grid.shift(direction, displacement);
            return new CartesianCommunicator.Shift(right.destination(), right.source());
        }
    }

    /** sub keeps the dimensions it is asked to drop and drops the others. */
    static final class SubInverted {
        private final CartesianCommunicator grid;

        SubInverted(CartesianCommunicator grid) {
            this.grid = grid;
        }

        public CartesianCommunicator sub(boolean[] remainDims) {
            boolean[] inverted = new boolean[remainDims.length];
            for (int d = 0; d < inverted.length; d++) {
                inverted[d] = !remainDims[d];
            }
            return grid.sub(inverted);
        }
    }

    /**
     * neighborAlltoall puts the block from each dimension's negative neighbour where the positive
     * one's belongs and vice versa (the matching MPI 4.1 §8.6 rules out).
     */
    static final class AlltoallBlocksUnswapped {
        private final CartesianCommunicator grid;

        AlltoallBlocksUnswapped(CartesianCommunicator grid) {
            this.grid = grid;
        }

        public void neighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                     Datatype recvType) {
            grid.neighborAlltoall(send, sendCount, sendType, recv, recvCount, recvType);
            long block = recvCount * recvType.extent();
            byte[] held = new byte[(int) block];
            for (int d = 0; d < grid.dimensions(); d++) {
                MemorySegment negative = recv.asSlice(2 * d * block, block);
                MemorySegment positive = recv.asSlice((2 * d + 1) * block, block);
                MemorySegment.copy(negative, 0, MemorySegment.ofArray(held), 0, block);
                negative.copyFrom(positive);
                positive.copyFrom(MemorySegment.ofArray(held));
            }
        }
    }

    /** ineighborAlltoall returns a completed request and exchanges nothing. */
    static final class IneighborAlltoallNeverRuns {
        IneighborAlltoallNeverRuns(CartesianCommunicator grid) {
        }

        public Request ineighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                         Datatype recvType) {
            return new Requests.Completed(Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0));
        }
    }

    /** A distributed graph's neighbors() lists the sources (and their weights) in reverse order. */
    static final class GraphSourcesReversed {
        private final Communicator real;

        GraphSourcesReversed(Communicator real) {
            this.real = real;
        }

        static final class Reversed {
            private final DistGraphCommunicator graph;

            Reversed(DistGraphCommunicator graph) {
                this.graph = graph;
            }

            public DistGraphCommunicator.Neighbors neighbors() {
                DistGraphCommunicator.Neighbors right = graph.neighbors();
                return new DistGraphCommunicator.Neighbors(reversed(right.sources()), reversed(right.sourceWeights()),
                        right.destinations(), right.destinationWeights());
            }

            private static int[] reversed(int[] a) {
                if (a == null) {
                    return null;
                }
                int[] r = new int[a.length];
                for (int i = 0; i < a.length; i++) {
                    r[i] = a[a.length - 1 - i];
                }
                return r;
            }
        }

        public DistGraphCommunicator createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations,
                                                             int[] destinationWeights, Info hints, boolean reorder) {
            DistGraphCommunicator graph = real.createDistGraphAdjacent(sources, sourceWeights, destinations, destinationWeights, hints,
                    reorder);
            return Forwarders.forward(DistGraphCommunicator.class, graph, new Reversed(graph));
        }
    }

    /** A neighbourhood allgather on a communicator without topology returns without an error, having done nothing. */
    static final class AllgatherWithoutTopologyAccepted {
        AllgatherWithoutTopologyAccepted(Communicator real) {
        }

        public void neighborAllgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                      Datatype recvType) {
        }
    }
}
