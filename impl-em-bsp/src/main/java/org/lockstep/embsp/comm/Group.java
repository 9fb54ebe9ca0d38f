package org.lockstep.embsp.comm;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.IntUnaryOperator;

/**
 * The group of a communicator: its members' VP ids in rank order, its key (the same on every
 * real processor: derived from the parent's key, the call that made it and its color, so
 * processors agree without talking), the context id that isolates its point-to-point traffic,
 * where its members are simulated, and the state of its collective calls in progress (keyed by
 * the call's sequence number on this communicator; guarded by the scheduler's lock).
 */
final class Group {
    /** The key of the world group. */
    static final long WORLD = 0;
    /** The call sequence from which a collective channel's key is derived: no call of a communicator has it. */
    private static final long COLLECTIVE_CHANNEL = -1;

    private final long key;
    private final int[] members;
    private final Map<Integer, Integer> rankOf = new HashMap<>();
    private final int[] processorOfRank;
    private final int[] processors;
    private final int localMembers;
    private final int here;
    final Map<Long, CallState> calls = new HashMap<>();

    /** The same members on a context of their own, for collective traffic: see {@link #collectiveGroup()}. */
    private final Group collectiveGroup;

    /** A group of {@code members}; {@code processorOf} says which real processor simulates a VP, {@code here} is this one. */
    Group(long key, int[] members, IntUnaryOperator processorOf, int here) {
        this(key, members, processorOf, here, true);
    }

    private Group(long key, int[] members, IntUnaryOperator processorOf, int here, boolean withCollectiveGroup) {
        this.key = key;
        this.members = members.clone();
        this.here = here;
        this.processorOfRank = new int[members.length];
        TreeSet<Integer> hosts = new TreeSet<>();
        int local = 0;
        for (int r = 0; r < members.length; r++) {
            rankOf.put(members[r], r);
            processorOfRank[r] = processorOf.applyAsInt(members[r]);
            hosts.add(processorOfRank[r]);
            if (processorOfRank[r] == here) {
                local++;
            }
        }
        this.processors = hosts.stream().mapToInt(Integer::intValue).toArray();
        this.localMembers = local;
        this.collectiveGroup = withCollectiveGroup
                ? new Group(derivedKey(key, COLLECTIVE_CHANNEL, 0), members, processorOf, here, false) : this;
    }

    /**
     * The group of the communicator's collective channel: the same members on a context of their
     * own (a key derived by a call sequence no communicator call reaches), so that point-to-point
     * schedules (the non-blocking collectives EM-BSP has no algorithm of its own for) never match
     * application messages. Shared by every member, like this group.
     */
    Group collectiveGroup() {
        return collectiveGroup;
    }

    /** The key of the group made by call {@code sequence} of {@code parent} for {@code color} (split) or a dup. */
    static long derivedKey(long parent, long sequence, long color) {
        long h = parent * 0x9E3779B97F4A7C15L + sequence;
        h = (h ^ (h >>> 31)) * 0xBF58476D1CE4E5B9L + color;
        h = (h ^ (h >>> 29)) * 0x94D049BB133111EBL;
        h ^= h >>> 32;
        return h == WORLD ? 1 : h;
    }

    /** The key of the group that {@code members} make from {@code parent} with {@code tag} in their {@code call}-th createGroup. */
    static long createdKey(long parent, int tag, int[] members, long call) {
        return derivedKey(derivedKey(parent, Long.MIN_VALUE + call, tag), Arrays.hashCode(members), members.length);
    }

    long key() {
        return key;
    }

    /** The matching context of point-to-point messages on this group: the key's low word (the key's last mixing step folded the high word in), never the world's 0 for another group. */
    int context() {
        int low = (int) key;
        return key == WORLD ? 0 : low == 0 ? 1 : low;
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

    /** The real processor that simulates rank {@code rank}. */
    int processorOf(int rank) {
        return processorOfRank[rank];
    }

    /** Whether rank {@code rank} is simulated here. */
    boolean isLocal(int rank) {
        return processorOfRank[rank] == here;
    }

    /** Whether members live on more than this real processor. */
    boolean spansProcessors() {
        return processors.length > 1;
    }

    /** The real processors that simulate members, ascending. */
    int[] processors() {
        return processors.clone();
    }

    /** How many other real processors simulate members. */
    int otherProcessors() {
        return processors.length - 1;
    }

    /** Members simulated here. */
    int localMembers() {
        return localMembers;
    }

    /** Members simulated elsewhere. */
    int remoteMembers() {
        return members.length - localMembers;
    }

    @Override
    public String toString() {
        return "group " + Long.toHexString(key) + " " + (members.length <= 8 ? Arrays.toString(members) : "of " + members.length);
    }
}
