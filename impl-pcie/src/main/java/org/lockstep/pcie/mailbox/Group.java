package org.lockstep.pcie.mailbox;

import java.util.Arrays;

/**
 * The ranks of a communicator as world ranks, in the communicator's rank order, and the way back
 * ({@code MPI_Group_translate_ranks} in both directions).
 */
final class Group {
    private final int[] worldRanks;
    private final int[] groupRankOfWorld;

    private Group(int[] worldRanks, int worldSize) {
        this.worldRanks = worldRanks;
        this.groupRankOfWorld = new int[worldSize];
        Arrays.fill(groupRankOfWorld, -1);
        for (int i = 0; i < worldRanks.length; i++) {
            groupRankOfWorld[worldRanks[i]] = i;
        }
    }

    static Group world(int size) {
        int[] ranks = new int[size];
        Arrays.setAll(ranks, i -> i);
        return new Group(ranks, size);
    }

    static Group of(int[] worldRanks, int worldSize) {
        return new Group(worldRanks.clone(), worldSize);
    }

    int size() {
        return worldRanks.length;
    }

    /** The world rank of group rank {@code rank}; wildcards and {@code PROC_NULL} pass through. */
    int worldRank(int rank) {
        return rank < 0 ? rank : worldRanks[rank];
    }

    /** The group rank of world rank {@code worldRank}, or -1 if it is not a member. */
    int rankOf(int worldRank) {
        return worldRank < 0 ? worldRank : groupRankOfWorld[worldRank];
    }


    @Override
    public String toString() {
        return Arrays.toString(worldRanks);
    }
}
