package mpi;

/** The neighbours {@link CartComm#shift} finds: where to receive from and where to send to. */
public final class ShiftParms {
    private final int rankSource;
    private final int rankDest;

    ShiftParms(int rankSource, int rankDest) {
        this.rankSource = rankSource;
        this.rankDest = rankDest;
    }

    public int getRankSource() {
        return rankSource;
    }

    public int getRankDest() {
        return rankDest;
    }
}
