package mpi;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * An ordered set of processes ({@code MPI_Group}), held as their ranks in {@code MPI.COMM_WORLD}.
 * Every operation here is local, as in MPI.
 */
public final class Group implements Freeable {
    /** World ranks of the members, in group order. */
    private final int[] members;
    private boolean freed;

    Group(int[] worldRanks) {
        this.members = worldRanks;
    }

    static Group empty() {
        return new Group(new int[0]);
    }

    int[] worldRanks() {
        return members;
    }

    private void check(String call) throws MPIException {
        MPI.check();
        if (freed) {
            throw ErrorClasses.argument(ErrorClasses.GROUP, call, "the group was freed");
        }
    }

    /** Number of members ({@code MPI_Group_size}). */
    public int getSize() throws MPIException {
        check("Group.getSize");
        return members.length;
    }

    /** This process's rank in the group, or {@code MPI.UNDEFINED} ({@code MPI_Group_rank}). */
    public int getRank() throws MPIException {
        check("Group.getRank");
        return indexOf(members, MPI.COMM_WORLD.getRank());
    }

    private static int indexOf(int[] ranks, int worldRank) {
        for (int i = 0; i < ranks.length; i++) {
            if (ranks[i] == worldRank) {
                return i;
            }
        }
        return MPI.UNDEFINED;
    }

    /** Frees the group ({@code MPI_Group_free}). */
    @Override
    public void free() throws MPIException {
        check("Group.free");
        if (this != MPI.GROUP_EMPTY) {
            freed = true;
        }
    }

    /** Whether the group was freed ({@code MPI_GROUP_NULL}). */
    public boolean isNull() {
        return freed;
    }

    /** The ranks in {@code group2} of the processes with ranks {@code ranks1} in {@code group1} ({@code MPI_Group_translate_ranks}). */
    public static int[] translateRanks(Group group1, int[] ranks1, Group group2) throws MPIException {
        group1.check("Group.translateRanks");
        group2.check("Group.translateRanks");
        int[] result = new int[ranks1.length];
        for (int i = 0; i < ranks1.length; i++) {
            int r = ranks1[i];
            if (r == MPI.PROC_NULL) {
                result[i] = MPI.PROC_NULL;
            } else if (r < 0 || r >= group1.members.length) {
                throw ErrorClasses.argument(ErrorClasses.RANK, "Group.translateRanks", "rank " + r + " is not in a group of " + group1.members.length);
            } else {
                result[i] = indexOf(group2.members, group1.members[r]);
            }
        }
        return result;
    }

    /** {@code MPI.IDENT}, {@code MPI.SIMILAR} (same members, other order) or {@code MPI.UNEQUAL} ({@code MPI_Group_compare}). */
    public static int compare(Group group1, Group group2) throws MPIException {
        group1.check("Group.compare");
        group2.check("Group.compare");
        if (Arrays.equals(group1.members, group2.members)) {
            return MPI.IDENT;
        }
        int[] a = group1.members.clone();
        int[] b = group2.members.clone();
        Arrays.sort(a);
        Arrays.sort(b);
        return Arrays.equals(a, b) ? MPI.SIMILAR : MPI.UNEQUAL;
    }

    /** The members of {@code group1}, then those of {@code group2} not in it ({@code MPI_Group_union}). */
    public static Group union(Group group1, Group group2) throws MPIException {
        group1.check("Group.union");
        group2.check("Group.union");
        Set<Integer> all = new LinkedHashSet<>();
        Arrays.stream(group1.members).forEach(all::add);
        Arrays.stream(group2.members).forEach(all::add);
        return new Group(all.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The members of {@code group1} also in {@code group2}, in {@code group1}'s order ({@code MPI_Group_intersection}). */
    public static Group intersection(Group group1, Group group2) throws MPIException {
        group1.check("Group.intersection");
        group2.check("Group.intersection");
        return new Group(Arrays.stream(group1.members).filter(r -> indexOf(group2.members, r) != MPI.UNDEFINED).toArray());
    }

    /** The members of {@code group1} not in {@code group2} ({@code MPI_Group_difference}). */
    public static Group difference(Group group1, Group group2) throws MPIException {
        group1.check("Group.difference");
        group2.check("Group.difference");
        return new Group(Arrays.stream(group1.members).filter(r -> indexOf(group2.members, r) == MPI.UNDEFINED).toArray());
    }

    /** The members with ranks {@code ranks}, in that order ({@code MPI_Group_incl}). */
    public Group incl(int[] ranks) throws MPIException {
        check("Group.incl");
        checkDistinctRanks("Group.incl", ranks);
        int[] result = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            result[i] = members[ranks[i]];
        }
        return new Group(result);
    }

    /** The members without ranks {@code ranks} ({@code MPI_Group_excl}). */
    public Group excl(int[] ranks) throws MPIException {
        check("Group.excl");
        checkDistinctRanks("Group.excl", ranks);
        boolean[] out = new boolean[members.length];
        for (int r : ranks) {
            out[r] = true;
        }
        int[] result = new int[members.length - ranks.length];
        int n = 0;
        for (int i = 0; i < members.length; i++) {
            if (!out[i]) {
                result[n++] = members[i];
            }
        }
        return new Group(result);
    }

    /** The members in the ranges {first, last, stride} ({@code MPI_Group_range_incl}). */
    public Group rangeIncl(int[][] ranges) throws MPIException {
        check("Group.rangeIncl");
        return incl(expand("Group.rangeIncl", ranges));
    }

    /** The members not in the ranges {first, last, stride} ({@code MPI_Group_range_excl}). */
    public Group rangeExcl(int[][] ranges) throws MPIException {
        check("Group.rangeExcl");
        return excl(expand("Group.rangeExcl", ranges));
    }

    private int[] expand(String call, int[][] ranges) throws MPIException {
        java.util.List<Integer> ranks = new java.util.ArrayList<>();
        for (int[] range : ranges) {
            if (range.length != 3 || range[2] == 0) {
                throw ErrorClasses.argument(ErrorClasses.ARG, call, "a range is {first, last, stride} with a non-zero stride: " + Arrays.toString(range));
            }
            int first = range[0];
            int last = range[1];
            int stride = range[2];
            if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
                throw ErrorClasses.argument(ErrorClasses.ARG, call, "the range " + Arrays.toString(range) + " is empty in the direction of its stride");
            }
            for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
                ranks.add(r);
            }
        }
        return ranks.stream().mapToInt(Integer::intValue).toArray();
    }

    private void checkDistinctRanks(String call, int[] ranks) throws MPIException {
        boolean[] seen = new boolean[members.length];
        for (int r : ranks) {
            if (r < 0 || r >= members.length) {
                throw ErrorClasses.argument(ErrorClasses.RANK, call, "rank " + r + " is not in a group of " + members.length);
            }
            if (seen[r]) {
                throw ErrorClasses.argument(ErrorClasses.RANK, call, "rank " + r + " is given twice");
            }
            seen[r] = true;
        }
    }

    @Override
    public String toString() {
        return "Group" + Arrays.toString(members);
    }
}
