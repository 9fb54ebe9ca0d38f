package org.lockstep.embsp.comm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** The collective calls that make communicators: {@code MPI_Comm_dup} and {@code MPI_Comm_split}. */
final class CommunicatorCalls {
    private final CallSynchronisation calls;

    CommunicatorCalls(CallSynchronisation calls) {
        this.calls = calls;
    }

    /** {@code MPI_Comm_dup}: the first VP makes the group; nobody waits. */
    EmCommunicator dup(EmCommunicator c) {
        CallState call = calls.enter(c, "dup");
        Group[] made = new Group[1];
        calls.locked(() -> {
            if (call.dupGroup == null) {
                call.dupGroup = calls.world().group(Group.derivedKey(c.vpGroup().key(), call.sequence, -1), c.vpGroup().members());
            }
            made[0] = call.dupGroup;
        });
        calls.leave(c, call);
        return c.on(made[0]);
    }

    /** {@code MPI_Comm_split}: the last VP to arrive forms the groups; the others wait for it. */
    EmCommunicator split(EmCommunicator c, int color, int key) {
        if (color < 0 && color != Communicator.UNDEFINED) {
            throw new LockstepException(ErrorClass.ARG, "split color " + color + " is negative and not UNDEFINED");
        }
        CallState call = calls.enter(c, "split");
        int rank = c.rank();
        calls.locked(() -> {
            call.colors[rank] = color;
            call.keys[rank] = key;
            if (call.arrivals.increment() == call.n) {
                formSplitGroups(c.vpGroup(), call);
                call.arrivals.set(calls.scheduler());
            }
        });
        calls.await(c, call, call.arrivals::isSet, call.arrivals, "split waiting for every rank's color");
        Group mine = call.splitGroups[rank];
        calls.leave(c, call);
        return mine == null ? null : c.on(mine);
    }

    /** Forms the groups of a split whose colors and keys are all known (lock held). */
    void formSplitGroups(Group parent, CallState call) {
        Map<Integer, List<Integer>> byColor = new LinkedHashMap<>();
        for (int r = 0; r < call.n; r++) {
            if (call.colors[r] != Communicator.UNDEFINED) {
                byColor.computeIfAbsent(call.colors[r], x -> new ArrayList<>()).add(r);
            }
        }
        call.splitGroups = new Group[call.n];
        byColor.keySet().stream().sorted().forEach(color -> {
            List<Integer> ranks = byColor.get(color);
            ranks.sort(Comparator.<Integer>comparingInt(r -> call.keys[r]).thenComparingInt(r -> r));
            int[] members = ranks.stream().mapToInt(parent::vpOf).toArray();
            Group g = calls.world().group(Group.derivedKey(parent.key(), call.sequence, color), members);
            for (int r : ranks) {
                call.splitGroups[r] = g;
            }
        });
    }
}
