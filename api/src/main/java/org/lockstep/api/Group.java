package org.lockstep.api;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An ordered set of processes ({@code MPI_Group}), named by their ranks in the world, and the
 * calling process's place in it. Groups are values: every operation returns a new group and none
 * is collective (MPI 4.1 §7.3).
 */
public final class Group {
    /** How two groups or communicators relate ({@code MPI_IDENT}, {@code MPI_CONGRUENT}, {@code MPI_SIMILAR}, {@code MPI_UNEQUAL}). */
    public enum Comparison {
        /** The same members in the same order (for communicators: the same communicator). */
        IDENT,
        /** Communicators only: the same group, another context. */
        CONGRUENT,
        /** The same members in another order. */
        SIMILAR,
        UNEQUAL
    }

    /** The group with no members ({@code MPI_GROUP_EMPTY}). */
    public static final Group EMPTY = new Group(new int[0], -1);

    private final int[] members;
    private final int self;
    private final Map<Integer, Integer> rankOf = new HashMap<>();

    private Group(int[] members, int self) {
        this.members = members;
        this.self = self;
        for (int r = 0; r < members.length; r++) {
            if (rankOf.put(members[r], r) != null) {
                throw new LockstepException(ErrorClass.RANK, "process " + members[r] + " appears twice in a group");
            }
        }
    }

    /** A group of the given world ranks, in order; {@code selfWorldRank} is the calling process's world rank. */
    public static Group of(int selfWorldRank, int... worldRanks) {
        for (int w : worldRanks) {
            if (w < 0) {
                throw new LockstepException(ErrorClass.RANK, "world rank " + w + " is negative");
            }
        }
        return new Group(worldRanks.clone(), selfWorldRank);
    }

    public int size() {
        return members.length;
    }

    /** The calling process's rank in the group, or {@link Communicator#UNDEFINED} if it is not a member ({@code MPI_Group_rank}). */
    public int rank() {
        return rankOfWorld(self);
    }

    /** The world rank of the member of rank {@code rank}. */
    public int worldRank(int rank) {
        checkRank(rank);
        return members[rank];
    }

    /** The world ranks of the members, in rank order. */
    public int[] worldRanks() {
        return members.clone();
    }

    /** The rank of world rank {@code worldRank} here, or {@link Communicator#UNDEFINED}. */
    public int rankOfWorld(int worldRank) {
        Integer r = rankOf.get(worldRank);
        return r == null ? Communicator.UNDEFINED : r;
    }

    /** The world rank of the calling process. */
    public int selfWorldRank() {
        return self;
    }

    private void checkRank(int rank) {
        if (rank < 0 || rank >= members.length) {
            throw new LockstepException(ErrorClass.RANK, "rank " + rank + " is outside the group's [0, " + members.length + ")");
        }
    }

    /** Members {@code ranks[0]}, {@code ranks[1]}, … in that order ({@code MPI_Group_incl}). */
    public Group incl(int... ranks) {
        int[] picked = new int[ranks.length];
        Set<Integer> seen = new java.util.HashSet<>();
        for (int i = 0; i < ranks.length; i++) {
            checkRank(ranks[i]);
            if (!seen.add(ranks[i])) {
                throw new LockstepException(ErrorClass.RANK, "rank " + ranks[i] + " is listed twice");
            }
            picked[i] = members[ranks[i]];
        }
        return new Group(picked, self);
    }

    /** Every member but {@code ranks}, in this group's order ({@code MPI_Group_excl}). */
    public Group excl(int... ranks) {
        boolean[] out = new boolean[members.length];
        for (int r : ranks) {
            checkRank(r);
            if (out[r]) {
                throw new LockstepException(ErrorClass.RANK, "rank " + r + " is listed twice");
            }
            out[r] = true;
        }
        return new Group(java.util.stream.IntStream.range(0, members.length).filter(r -> !out[r]).map(r -> members[r]).toArray(), self);
    }

    /** The ranks of triplets (first, last, stride), in order ({@code MPI_Group_range_incl}). */
    public Group rangeIncl(int[][] ranges) {
        return incl(expand(ranges));
    }

    /** Every member but the ranks of the triplets ({@code MPI_Group_range_excl}). */
    public Group rangeExcl(int[][] ranges) {
        return excl(expand(ranges));
    }

    private int[] expand(int[][] ranges) {
        java.util.List<Integer> ranks = new java.util.ArrayList<>();
        for (int[] t : ranges) {
            if (t == null || t.length != 3 || t[2] == 0) {
                throw new LockstepException(ErrorClass.ARG, "a range is (first, last, stride) with a stride other than 0, got "
                        + Arrays.toString(t));
            }
            for (int r = t[0]; t[2] > 0 ? r <= t[1] : r >= t[1]; r += t[2]) {
                ranks.add(r);
            }
        }
        return ranks.stream().mapToInt(Integer::intValue).toArray();
    }

    /** This group's members, then the other's not in this one ({@code MPI_Group_union}). */
    public Group union(Group other) {
        Set<Integer> all = new LinkedHashSet<>();
        for (int m : members) {
            all.add(m);
        }
        for (int m : Objects.requireNonNull(other, "other").members) {
            all.add(m);
        }
        return new Group(all.stream().mapToInt(Integer::intValue).toArray(), self);
    }

    /** This group's members that are also in the other, in this group's order ({@code MPI_Group_intersection}). */
    public Group intersection(Group other) {
        return new Group(Arrays.stream(members).filter(m -> other.rankOf.containsKey(m)).toArray(), self);
    }

    /** This group's members that are not in the other ({@code MPI_Group_difference}). */
    public Group difference(Group other) {
        return new Group(Arrays.stream(members).filter(m -> !other.rankOf.containsKey(m)).toArray(), self);
    }

    /** The ranks in {@code other} of this group's members {@code ranks}, {@link Communicator#UNDEFINED} where absent ({@code MPI_Group_translate_ranks}). */
    public int[] translateRanks(int[] ranks, Group other) {
        int[] out = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            out[i] = ranks[i] == Communicator.PROC_NULL ? Communicator.PROC_NULL : other.rankOfWorld(worldRank(ranks[i]));
        }
        return out;
    }

    /** {@link Comparison#IDENT}, {@link Comparison#SIMILAR} or {@link Comparison#UNEQUAL} ({@code MPI_Group_compare}). */
    public Comparison compare(Group other) {
        if (Arrays.equals(members, other.members)) {
            return Comparison.IDENT;
        }
        if (members.length == other.members.length && Arrays.stream(members).allMatch(other.rankOf::containsKey)) {
            return Comparison.SIMILAR;
        }
        return Comparison.UNEQUAL;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Group g && Arrays.equals(members, g.members);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(members);
    }

    @Override
    public String toString() {
        return "Group" + (members.length <= 16 ? Arrays.toString(members) : "[" + members.length + " processes]");
    }
}
