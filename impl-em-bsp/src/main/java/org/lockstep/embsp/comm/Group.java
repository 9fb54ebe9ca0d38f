package org.lockstep.embsp.comm;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The group of a communicator: its members' VP ids in rank order, the context id that isolates
 * its point-to-point traffic, and the state of its collective calls in progress (keyed by the
 * call's sequence number on this communicator; guarded by the scheduler's lock).
 */
final class Group {
    private final int id;
    private final int[] members;
    private final Map<Integer, Integer> rankOf = new HashMap<>();
    final Map<Long, CallState> calls = new HashMap<>();

    Group(int id, int[] members) {
        this.id = id;
        this.members = members.clone();
        for (int r = 0; r < members.length; r++) {
            rankOf.put(members[r], r);
        }
    }

    int id() {
        return id;
    }

    /** The matching context of point-to-point messages on this group. */
    int context() {
        return id;
    }

    int size() {
        return members.length;
    }

    /** VP id of rank {@code rank}. */
    int vpOf(int rank) {
        return members[rank];
    }

    /** Rank of VP {@code vp}, or -1 if it is not a member. */
    int rankOfVp(int vp) {
        Integer r = rankOf.get(vp);
        return r == null ? -1 : r;
    }

    int[] members() {
        return members.clone();
    }

    @Override
    public String toString() {
        return "group " + id + " " + (members.length <= 8 ? Arrays.toString(members) : "of " + members.length);
    }
}
