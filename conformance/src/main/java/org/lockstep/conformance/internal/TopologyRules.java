package org.lockstep.conformance.internal;

import static org.lockstep.api.Communicator.PROC_NULL;
import static org.lockstep.conformance.Group.TOPO;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.DistGraphCommunicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Topology;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/**
 * Process topologies (MPI 4.1 chapter 8): Cartesian grids number their ranks row-major, shift
 * finds the neighbours MPI names (PROC_NULL beyond a non-periodic edge), sub keeps the dimensions
 * asked for, distributed graphs hold the edges given or named anywhere, and bad arguments are
 * TOPOLOGY or DIMS errors. The neighbourhood collectives are {@link NeighborhoodRules}.
 */
final class TopologyRules {
    private TopologyRules() {
    }

    static List<Rule> rules() {
        return List.of(
                messaging(TOPO, 1, REQUIRED, "cartesianGridsNumberRanksRowMajor",
                        "dimsCreate balances the free dimensions in non-increasing order (9 x 8 for 72, not 12 x 6) and rejects what"
                                + " cannot be factored (DIMS); createCart gives a CARTESIAN communicator whose dims, periods and"
                                + " coords are those asked for, ranks row-major, rank(coords) inverting coords and wrapping in periodic"
                                + " dimensions; ranks beyond a smaller grid get null; dup and idup keep the grid.",
                        List.of(standard("§8.5.1 MPI_Cart_create, §8.5.2 MPI_Dims_create, §8.5.5 MPI_Cart_get, MPI_Cart_rank,"
                                + " MPI_Cart_coords, MPI_Topo_test"), mpich("topo/cartcreates.c"), mpich("topo/dims1.c"),
                                mpich("topo/cartmap1.c")), TopologyRules::cartesianGrids),
                messaging(TOPO, 2, REQUIRED, "shiftFindsTheNeighboursMpiNames",
                        "shift(direction, displacement) gives the ranks displacement steps below (source) and above (destination),"
                                + " wrapping in a periodic dimension and PROC_NULL beyond a non-periodic edge; a message sent along the"
                                + " shift arrives from the source, and a receive from PROC_NULL leaves its buffer untouched.",
                        List.of(standard("§8.5.6 MPI_Cart_shift"), mpich("topo/cartshift1.c")), TopologyRules::shifts),
                messaging(TOPO, 3, REQUIRED, "subKeepsTheDimensionsAskedFor",
                        "sub(remainDims) gives each rank the grid of the ranks that agree in the dropped coordinates: its dims,"
                                + " periods and coords are the kept ones, collectives over it involve that grid only, and dropping every"
                                + " dimension leaves a grid of one rank.",
                        List.of(standard("§8.5.7 MPI_Cart_sub"), mpich("topo/cartsuball.c")), TopologyRules::subGrids),
                messaging(TOPO, 4, REQUIRED, "distributedGraphsHoldTheirEdges",
                        "createDistGraphAdjacent keeps each rank's sources and destinations (and weights, or none) in the order"
                                + " given, repeated edges and self-loops included; createDistGraph delivers edges named by any rank to"
                                + " both ends, ordered by the naming rank and then as it named them; both are DIST_GRAPH.",
                        List.of(standard("§8.5.3 MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create;"
                                + " §8.5.5 MPI_Dist_graph_neighbors_count, MPI_Dist_graph_neighbors"), mpich("topo/distgraph1.c")),
                        TopologyRules::distGraphs),
                messaging(TOPO, 5, REQUIRED, "topologyErrorsAreTyped",
                        "A grid larger than the communicator is TOPOLOGY; dims and periods of different lengths, a non-positive"
                                + " dimension, a shift direction outside the grid, coordinates of the wrong number and a sub of the"
                                + " wrong length are DIMS; a coordinate off a non-periodic edge or a graph neighbour outside the"
                                + " communicator is RANK; a neighbourhood collective on a communicator without topology is TOPOLOGY;"
                                + " the communicator works on afterwards.",
                        List.of(standard("§8.5 topology constructors, §9.4 MPI_ERR_TOPOLOGY, MPI_ERR_DIMS"), mpich("topo/cartzero.c"),
                                mpich("errors/topo/cartsmall.c")), TopologyRules::errors));
    }

    static String text(int[] a) {
        return Arrays.toString(a);
    }

    private static void dimsCase(int nodes, int[] given, int[] expected) {
        int[] dims = given.clone();
        CartesianCommunicator.dimsCreate(nodes, dims);
        checkEquals(text(expected), text(dims), "dimsCreate(" + nodes + ", " + text(given) + ")");
    }

    private static void cartesianGrids(MessagingRuleContext c) {
        dimsCase(12, new int[2], new int[] {4, 3});
        dimsCase(72, new int[2], new int[] {9, 8});
        dimsCase(24, new int[] {0, 3, 0}, new int[] {4, 3, 2});
        dimsCase(16, new int[3], new int[] {4, 2, 2});
        dimsCase(7, new int[3], new int[] {7, 1, 1});
        dimsCase(6, new int[] {2, 3}, new int[] {2, 3});
        expectError(ErrorClass.DIMS, "dimsCreate(10, {3, 0})", () -> CartesianCommunicator.dimsCreate(10, new int[] {3, 0}));
        expectError(ErrorClass.DIMS, "dimsCreate(6, {4})", () -> CartesianCommunicator.dimsCreate(6, new int[] {4}));
        expectError(ErrorClass.DIMS, "dimsCreate(0, {0})", () -> CartesianCommunicator.dimsCreate(0, new int[1]));
        expectError(ErrorClass.DIMS, "dimsCreate(6, {-2, 0})", () -> CartesianCommunicator.dimsCreate(6, new int[] {-2, 0}));
        for (int n : c.rankCounts(3, 8)) {
            c.runClean(n, "Cartesian grids", rank -> {
                Communicator w = rank.comm();
                checkEquals(Topology.NONE, w.topology(), "topology of a plain communicator");
                int[] dims = CartesianCommunicator.dimsCreate(n, new int[2]);
                CartesianCommunicator cart = w.createCart(dims, new boolean[] {true, false}, false);
                checkEquals(Topology.CARTESIAN, cart.topology(), "topology of a Cartesian communicator");
                checkEquals(n, cart.size(), "size of a grid of " + text(dims));
                checkEquals(2, cart.dimensions(), "dimensions");
                checkEquals(text(dims), text(cart.dims()), "dims");
                checkEquals("[true, false]", Arrays.toString(cart.periods()), "periods");
                for (int r = 0; r < n; r++) {
                    int[] expected = {r / dims[1], r % dims[1]};
                    checkEquals(text(expected), text(cart.coords(r)), "coords of rank " + r + " in " + text(dims) + " (row-major)");
                    checkEquals(r, cart.rank(expected), "rank at " + text(expected));
                }
                checkEquals(text(cart.coords(cart.rank())), text(cart.coords()), "own coords");
                checkEquals(cart.rank(new int[] {dims[0] - 1, 0}), cart.rank(new int[] {-1, 0}), "rank at -1 of the periodic dimension");
                checkEquals(cart.rank(new int[] {0, dims[1] - 1}), cart.rank(new int[] {dims[0], dims[1] - 1}),
                        "rank at dims[0] of the periodic dimension");
                CartesianCommunicator line = w.createCart(new int[] {n - 1}, new boolean[] {false}, false);
                if (w.rank() == n - 1) {
                    checkEquals(null, line, "the rank beyond a grid of " + (n - 1));
                } else {
                    check(line != null, "rank " + w.rank() + " is in the grid of " + (n - 1) + " but got null");
                    checkEquals(n - 1, line.size(), "size of a grid smaller than the communicator");
                    checkEquals(w.rank(), line.coords()[0], "coordinate in a line without reordering");
                    line.close();
                }
                CartesianCommunicator copy = (CartesianCommunicator) cart.dup();
                org.lockstep.api.CommunicatorRequest pending = cart.idup();
                pending.await();
                CartesianCommunicator started = (CartesianCommunicator) pending.communicator();
                for (CartesianCommunicator duplicate : new CartesianCommunicator[] {copy, started}) {
                    checkEquals(text(cart.coords()), text(duplicate.coords()), "coords in a duplicate of a grid");
                    int[] ranks = new int[4];
                    duplicate.neighborAllgather(MemorySegment.ofArray(new int[] {duplicate.rank()}), 1, Datatype.INT,
                            MemorySegment.ofArray(ranks));
                    CartesianCommunicator.Shift down = duplicate.shift(0, 1);
                    checkEquals(down.source(), ranks[0], "neighborAllgather's block from below on a duplicate of a grid");
                    duplicate.close();
                }
                cart.close();
            });
        }
    }

    private static void shifts(MessagingRuleContext c) {
        for (int n : c.rankCounts(4, 8)) {
            c.runClean(n, "shifts", rank -> {
                Communicator w = rank.comm();
                int[] dims = CartesianCommunicator.dimsCreate(n, new int[2]);
                CartesianCommunicator cart = w.createCart(dims, new boolean[] {true, false}, false);
                int[] me = cart.coords();
                int up = (me[0] + 1) % dims[0];
                int down = (me[0] + dims[0] - 1) % dims[0];
                checkShift(cart, 0, 1, cart.rank(new int[] {down, me[1]}), cart.rank(new int[] {up, me[1]}));
                checkShift(cart, 0, 2, cart.rank(new int[] {Math.floorMod(me[0] - 2, dims[0]), me[1]}),
                        cart.rank(new int[] {(me[0] + 2) % dims[0], me[1]}));
                int left = me[1] == 0 ? PROC_NULL : cart.rank(new int[] {me[0], me[1] - 1});
                int right = me[1] == dims[1] - 1 ? PROC_NULL : cart.rank(new int[] {me[0], me[1] + 1});
                checkShift(cart, 1, 1, left, right);
                checkShift(cart, 1, -1, right, left);
                checkShift(cart, 1, dims[1], PROC_NULL, PROC_NULL);
                CartesianCommunicator.Shift along = cart.shift(1, 1);
                int[] got = {-7};
                cart.sendrecv(MemorySegment.ofArray(new int[] {cart.rank()}), 1, Datatype.INT, along.destination(), 5,
                        MemorySegment.ofArray(got), 1, Datatype.INT, along.source(), 5);
                checkEquals(along.source() == PROC_NULL ? -7 : along.source(), got[0], "what arrived along shift(1, 1)");
                cart.close();
            });
        }
    }

    private static void checkShift(CartesianCommunicator cart, int direction, int displacement, int source, int destination) {
        CartesianCommunicator.Shift s = cart.shift(direction, displacement);
        checkEquals(new CartesianCommunicator.Shift(source, destination), s, "shift(" + direction + ", " + displacement + ") at "
                + text(cart.coords()) + " of " + text(cart.dims()));
    }

    private static void subGrids(MessagingRuleContext c) {
        for (int n : c.rankCounts(4, 8)) {
            c.runClean(n, "sub", rank -> {
                int[] dims = CartesianCommunicator.dimsCreate(n, new int[2]);
                CartesianCommunicator cart = rank.comm().createCart(dims, new boolean[] {false, true}, false);
                int[] me = cart.coords();
                CartesianCommunicator row = cart.sub(new boolean[] {false, true});
                checkEquals(dims[1], row.size(), "size of the row (dimension 1 kept)");
                checkEquals("[" + dims[1] + "]", text(row.dims()), "dims of the row");
                checkEquals("[true]", Arrays.toString(row.periods()), "periods of the row");
                checkEquals(me[1], row.coords()[0], "coordinate in the row at " + text(me));
                checkEquals(me[1], row.rank(), "rank in the row at " + text(me));
                int[] sum = new int[1];
                row.allreduce(MemorySegment.ofArray(new int[] {cart.rank()}), MemorySegment.ofArray(sum), 1, Datatype.INT, Op.SUM);
                int expected = 0;
                for (int j = 0; j < dims[1]; j++) {
                    expected += me[0] * dims[1] + j;
                }
                checkEquals(expected, sum[0], "sum of the grid ranks over the row at " + text(me));
                CartesianCommunicator column = cart.sub(new boolean[] {true, false});
                checkEquals(dims[0], column.size(), "size of the column (dimension 0 kept)");
                checkEquals(me[0], column.coords()[0], "coordinate in the column at " + text(me));
                CartesianCommunicator alone = cart.sub(new boolean[] {false, false});
                checkEquals(1, alone.size(), "size with every dimension dropped");
                checkEquals(0, alone.dimensions(), "dimensions with every dimension dropped");
                alone.close();
                column.close();
                row.close();
                cart.close();
            });
        }
    }

    private static void distGraphs(MessagingRuleContext c) {
        for (int n : c.rankCounts(3, 8)) {
            c.runClean(n, "distributed graphs", rank -> {
                Communicator w = rank.comm();
                int r = w.rank();
                int prev = (r + n - 1) % n;
                int next = (r + 1) % n;
                int[] sources = {prev, r, prev};
                int[] sourceWeights = {1, 2, 3};
                int[] destinations = {next, r, next};
                int[] destinationWeights = {1, 2, 3};
                DistGraphCommunicator g = w.createDistGraphAdjacent(sources, sourceWeights, destinations, destinationWeights, Info.EMPTY,
                        false);
                checkEquals(Topology.DIST_GRAPH, g.topology(), "topology of a distributed graph");
                checkEquals(new DistGraphCommunicator.NeighborCounts(3, 3, true), g.neighborsCount(), "neighborsCount");
                DistGraphCommunicator.Neighbors got = g.neighbors();
                checkEquals(text(sources), text(got.sources()), "sources in the order given");
                checkEquals(text(sourceWeights), text(got.sourceWeights()), "source weights");
                checkEquals(text(destinations), text(got.destinations()), "destinations in the order given");
                checkEquals(text(destinationWeights), text(got.destinationWeights()), "destination weights");
                g.close();
                DistGraphCommunicator plain = w.createDistGraphAdjacent(new int[] {prev}, null, new int[] {next}, null, Info.EMPTY, false);
                checkEquals(new DistGraphCommunicator.NeighborCounts(1, 1, false), plain.neighborsCount(), "neighborsCount unweighted");
                checkEquals(null, plain.neighbors().sourceWeights(), "weights of an unweighted graph");
                plain.close();
                // rank 0 names the ring r -> r+1 (weight 10 r); every rank names r -> r+2 (weight 1000 + r)
                int[] namedSources = r == 0 ? new int[n + 1] : new int[] {r};
                int[] degrees = new int[namedSources.length];
                int[] namedDestinations = new int[namedSources.length];
                int[] weights = new int[namedSources.length];
                for (int i = 0; i < namedSources.length; i++) {
                    boolean ring = r == 0 && i < n;
                    namedSources[i] = ring ? i : r;
                    degrees[i] = 1;
                    namedDestinations[i] = ring ? (i + 1) % n : (r + 2) % n;
                    weights[i] = ring ? 10 * i : 1000 + r;
                }
                DistGraphCommunicator named = w.createDistGraph(namedSources, degrees, namedDestinations, weights, Info.EMPTY, false);
                List<int[]> in = new ArrayList<>();
                List<int[]> out = new ArrayList<>();
                for (int q = 0; q < n; q++) {
                    for (int[] e : namedBy(q, n)) {
                        if (e[1] == r) {
                            in.add(new int[] {e[0], e[2]});
                        }
                        if (e[0] == r) {
                            out.add(new int[] {e[1], e[2]});
                        }
                    }
                }
                DistGraphCommunicator.Neighbors gathered = named.neighbors();
                checkEquals(text(in.stream().mapToInt(e -> e[0]).toArray()), text(gathered.sources()), "sources of edges named anywhere");
                checkEquals(text(in.stream().mapToInt(e -> e[1]).toArray()), text(gathered.sourceWeights()), "their weights");
                checkEquals(text(out.stream().mapToInt(e -> e[0]).toArray()), text(gathered.destinations()),
                        "destinations of edges named anywhere");
                checkEquals(text(out.stream().mapToInt(e -> e[1]).toArray()), text(gathered.destinationWeights()), "their weights");
                named.close();
            });
        }
    }

    /** The edges (source, destination, weight) rank {@code q} names in {@link #distGraphs}, in its order. */
    private static List<int[]> namedBy(int q, int n) {
        List<int[]> edges = new ArrayList<>();
        if (q == 0) {
            for (int i = 0; i < n; i++) {
                edges.add(new int[] {i, (i + 1) % n, 10 * i});
            }
        }
        edges.add(new int[] {q, (q + 2) % n, 1000 + q});
        return edges;
    }

    private static void errors(MessagingRuleContext c) {
        c.runClean(4, "topology errors", rank -> {
            Communicator w = rank.comm();
            expectError(ErrorClass.TOPOLOGY, "createCart of 5 ranks on 4", () -> w.createCart(new int[] {5}, new boolean[1], false));
            expectError(ErrorClass.TOPOLOGY, "createCart of 3 x 2 ranks on 4",
                    () -> w.createCart(new int[] {3, 2}, new boolean[2], false));
            expectError(ErrorClass.DIMS, "createCart with 2 dims and 1 period", () -> w.createCart(new int[] {2, 2}, new boolean[1], false));
            expectError(ErrorClass.DIMS, "createCart with a dimension of 0", () -> w.createCart(new int[] {2, 0}, new boolean[2], false));
            CartesianCommunicator cart = w.createCart(new int[] {2, 2}, new boolean[] {true, false}, false);
            expectError(ErrorClass.DIMS, "shift in direction 2 of 2", () -> cart.shift(2, 1));
            expectError(ErrorClass.DIMS, "shift in direction -1", () -> cart.shift(-1, 1));
            expectError(ErrorClass.DIMS, "rank of 3 coordinates on 2 dimensions", () -> cart.rank(new int[] {0, 0, 0}));
            expectError(ErrorClass.RANK, "rank at column 2 of a non-periodic dimension of 2", () -> cart.rank(new int[] {0, 2}));
            expectError(ErrorClass.RANK, "coords of rank 4 of 4", () -> cart.coords(4));
            expectError(ErrorClass.DIMS, "sub with 3 flags on 2 dimensions", () -> cart.sub(new boolean[3]));
            int[] one = new int[1];
            int[] four = new int[4];
            expectError(ErrorClass.TOPOLOGY, "neighborAllgather without a topology", () -> w.neighborAllgather(
                    MemorySegment.ofArray(one), 1, Datatype.INT, MemorySegment.ofArray(four)));
            expectError(ErrorClass.TOPOLOGY, "neighborAlltoall without a topology", () -> w.neighborAlltoall(
                    MemorySegment.ofArray(four), 1, Datatype.INT, MemorySegment.ofArray(four)));
            expectError(ErrorClass.TOPOLOGY, "ineighborAlltoallv without a topology", () -> w.ineighborAlltoallv(
                    MemorySegment.ofArray(four), new long[4], new long[4], Datatype.INT, MemorySegment.ofArray(four), new long[4],
                    new long[4], Datatype.INT));
            expectError(ErrorClass.TOPOLOGY, "neighborAlltoallInit without a topology", () -> w.neighborAlltoallInit(
                    MemorySegment.ofArray(four), 1, Datatype.INT, MemorySegment.ofArray(four), 1, Datatype.INT));
            expectError(ErrorClass.ARG, "neighborAlltoallv with 3 counts for 4 neighbours", () -> cart.neighborAlltoallv(
                    MemorySegment.ofArray(four), new long[3], new long[3], Datatype.INT, MemorySegment.ofArray(four), new long[4],
                    new long[4], Datatype.INT));
            expectError(ErrorClass.BUFFER, "neighborAlltoall into a buffer of 1 int for 4 blocks", () -> cart.neighborAlltoall(
                    MemorySegment.ofArray(four), 1, Datatype.INT, MemorySegment.ofArray(one)));
            expectError(ErrorClass.RANK, "a graph source outside the communicator", () -> w.createDistGraphAdjacent(
                    new int[] {4}, null, new int[0], null, Info.EMPTY, false));
            expectError(ErrorClass.ARG, "2 weights for 1 edge", () -> w.createDistGraphAdjacent(
                    new int[] {0}, new int[] {1, 1}, new int[] {0}, new int[] {1}, Info.EMPTY, false));
            // every failure was local and typed: the communicators still work
            int[] sum = new int[1];
            cart.allreduce(MemorySegment.ofArray(new int[] {1}), MemorySegment.ofArray(sum), 1, Datatype.INT, Op.SUM);
            checkEquals(4, sum[0], "allreduce on the grid after its errors");
            Request barrier = w.ibarrier();
            barrier.await();
            cart.close();
        });
    }
}
