package org.lockstep.spi.collective;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Topology;
import org.lockstep.spi.topology.CartesianGrid;

/** A provider's communicator with a Cartesian grid ({@link CartesianGrid} does the arithmetic). */
final class CartesianTopologyCommunicator extends TopologyCommunicator implements CartesianCommunicator {
    private final CartesianGrid grid;

    CartesianTopologyCommunicator(AbstractCommunicator base, AbstractCommunicator channel, CartesianGrid grid) {
        super(base, channel, Topology.CARTESIAN, grid.neighborhood(base.rank()));
        this.grid = grid;
    }

    @Override
    TopologyCommunicator over(AbstractCommunicator duplicate, AbstractCommunicator channel) {
        return new CartesianTopologyCommunicator(duplicate, channel, grid);
    }

    @Override
    public int dimensions() {
        return withHandler(() -> {
            checkOpen();
            return grid.dimensions();
        });
    }

    @Override
    public int[] dims() {
        return withHandler(() -> {
            checkOpen();
            return grid.dims();
        });
    }

    @Override
    public boolean[] periods() {
        return withHandler(() -> {
            checkOpen();
            return grid.periods();
        });
    }

    @Override
    public int[] coords() {
        return coords(rank());
    }

    @Override
    public int[] coords(int rank) {
        return withHandler(() -> {
            checkOpen();
            return grid.coords(rank);
        });
    }

    @Override
    public int rank(int[] coords) {
        return withHandler(() -> {
            checkOpen();
            return grid.rank(coords);
        });
    }

    @Override
    public Shift shift(int direction, int displacement) {
        return withHandler(() -> {
            checkOpen();
            grid.checkDirection(direction);
            return new Shift(grid.neighbor(rank(), direction, -displacement), grid.neighbor(rank(), direction, displacement));
        });
    }

    @Override
    public CartesianCommunicator sub(boolean[] remainDims) {
        return withHandler(() -> {
            checkOpen();
            CartesianGrid kept = grid.sub(remainDims);
            CartesianTopologyCommunicator made = new CartesianTopologyCommunicator(
                    provided(base.implSplit(grid.subColor(rank(), remainDims), rank())), null, kept);
            made.errors.set(errors.handler());
            return made;
        });
    }
}
