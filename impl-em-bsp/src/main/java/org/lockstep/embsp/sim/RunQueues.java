package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The scheduling policy (seed 003 §4, §6.5): VP t runs only while it holds partition t mod k, so
 * at most k VPs run at once; each partition is granted to the VPs that want it in VP id order,
 * round after round; with the sequential driver a single CPU token also passes in id order, so
 * exactly one VP runs and the order never depends on timing. Guarded by the scheduler's lock.
 */
final class RunQueues {
    private final int partitions;
    private final boolean exclusive;
    private final RunStates states;
    /** Wakes a blocked partition owner that another VP waits for, so that it swaps out. */
    private final Consumer<Vp> wakeOwner;
    private final int[] owner;
    private final int[] lastGranted;
    private final List<TreeSet<Integer>> queues = new ArrayList<>();
    private final TreeSet<Integer> readyHolding = new TreeSet<>();
    private Vp[] vps = new Vp[0];
    /** The id of vps[0]: a real processor simulates VPs firstVp … firstVp + v/P − 1. */
    private int firstVp;
    private int tokenHolder = -1;
    private int lastRunner = -1;

    RunQueues(int partitions, boolean exclusive, RunStates states, Consumer<Vp> wakeOwner) {
        this.partitions = partitions;
        this.exclusive = exclusive;
        this.states = states;
        this.wakeOwner = wakeOwner;
        this.owner = new int[partitions];
        this.lastGranted = new int[partitions];
        for (int p = 0; p < partitions; p++) {
            owner[p] = -1;
            lastGranted[p] = -1;
            queues.add(new TreeSet<>());
        }
    }

    void register(Vp[] all) {
        this.vps = all.clone();
        this.firstVp = all.length == 0 ? 0 : all[0].id();
    }

    /** Every VP, in id order. */
    Vp[] all() {
        return vps;
    }

    /** Whether some other VP waits for {@code vp}'s partition. */
    boolean contended(Vp vp) {
        return !queues.get(vp.partition().index()).isEmpty();
    }

    /** {@code vp} (READY) wants to run: it queues for its partition, or, holding it, for the token. */
    void enqueue(Vp vp) {
        if (vp.holdsPartition) {
            readyHolding.add(vp.id());
        } else {
            queues.get(vp.partition().index()).add(vp.id());
        }
    }

    /** Sequential driver: a blocked VP is made to run, to re-check or to give up its partition. */
    void queueToRun(Vp vp) {
        states.set(vp, RunState.READY);
        states.active++;
        enqueue(vp);
    }

    /** {@code vp} gives up its partition (after its swap-out, or at its end). */
    void releasePartition(Vp vp) {
        owner[vp.partition().index()] = -1;
        vp.holdsPartition = false;
    }

    /** {@code vp} stops running: the token, if it has it, is free for the next. */
    void releaseToken(Vp vp) {
        if (tokenHolder == vp.id()) {
            tokenHolder = -1;
        }
    }

    /** Whether no VP holds the token (sequential driver). */
    boolean tokenFree() {
        return tokenHolder < 0;
    }

    /** Lets the next VPs run: each free partition to its next waiter in id order; with the sequential driver, the token to one VP. */
    void dispatch() {
        if (!exclusive) {
            for (int p = 0; p < partitions; p++) {
                dispatchPartition(p);
            }
            return;
        }
        for (int p = 0; p < partitions; p++) {
            if (!queues.get(p).isEmpty() && owner[p] >= 0 && vp(owner[p]).state == RunState.BLOCKED) {
                // its partition is wanted: it must run to swap out
                queueToRun(vp(owner[p]));
            }
        }
        if (tokenHolder >= 0 || states.unsettled > 0) {
            return;
        }
        int best = -1;
        int bestDistance = Integer.MAX_VALUE;
        Integer holding = cyclicNext(readyHolding, lastRunner + 1);
        if (holding != null) {
            best = holding;
            bestDistance = distance(holding);
        }
        for (int p = 0; p < partitions; p++) {
            if (owner[p] < 0 && !queues.get(p).isEmpty()) {
                int candidate = cyclicNext(queues.get(p), lastRunner + 1);
                int d = distance(candidate);
                if (d < bestDistance) {
                    best = candidate;
                    bestDistance = d;
                }
            }
        }
        if (best < 0) {
            return;
        }
        Vp chosen = vp(best);
        if (chosen.holdsPartition) {
            readyHolding.remove(best);
        } else {
            grantPartition(chosen);
        }
        tokenHolder = best;
        lastRunner = best;
        states.set(chosen, RunState.RUNNING);
        chosen.wake.signal();
    }

    private void dispatchPartition(int p) {
        TreeSet<Integer> queue = queues.get(p);
        if (queue.isEmpty()) {
            return;
        }
        if (owner[p] < 0) {
            Vp chosen = vp(cyclicNext(queue, lastGranted[p] + 1));
            grantPartition(chosen);
            states.set(chosen, RunState.RUNNING);
            chosen.wake.signal();
        } else if (vp(owner[p]).state == RunState.BLOCKED) {
            wakeOwner.accept(vp(owner[p]));
        }
    }

    private Vp vp(int id) {
        return vps[id - firstVp];
    }

    private void grantPartition(Vp vp) {
        int p = vp.partition().index();
        queues.get(p).remove(vp.id());
        owner[p] = vp.id();
        lastGranted[p] = vp.id();
        vp.holdsPartition = true;
    }

    private int distance(int id) {
        return Math.floorMod(id - lastRunner - 1, vps.length);
    }

    private static Integer cyclicNext(TreeSet<Integer> set, int from) {
        if (set.isEmpty()) {
            return null;
        }
        Integer next = set.ceiling(from);
        return next != null ? next : set.first();
    }
}
