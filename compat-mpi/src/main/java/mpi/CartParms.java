package mpi;

/** A Cartesian topology as {@link CartComm#getTopo} describes it: dimensions, periods, this rank's coordinates. */
public final class CartParms {
    private final int[] dims;
    private final boolean[] periods;
    private final int[] coords;

    CartParms(int[] dims, boolean[] periods, int[] coords) {
        this.dims = dims.clone();
        this.periods = periods.clone();
        this.coords = coords.clone();
    }

    public int getDimCount() {
        return dims.length;
    }

    public int getDim(int i) {
        return dims[i];
    }

    public boolean getPeriod(int i) {
        return periods[i];
    }

    public int getCoord(int i) {
        return coords[i];
    }
}
