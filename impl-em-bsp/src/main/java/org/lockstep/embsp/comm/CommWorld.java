package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.lockstep.api.LockstepException;
import org.lockstep.embsp.EmBspOptions;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameHandler;
import org.lockstep.embsp.net.Interconnect;
import org.lockstep.embsp.net.PollingWait;
import org.lockstep.embsp.sim.Machine;
import org.lockstep.embsp.sim.Scheduler;
import org.lockstep.embsp.sim.Vp;

/**
 * The communication state of one real processor's share of a simulation: its VPs' mailboxes, the
 * groups of their communicators (by key, the same on every processor), the budget of buffered
 * (eager) point-to-point messages, the EM-BSP collective engine and — with several real
 * processors — the {@link Interconnect} to the others. The world communicator of each VP comes
 * from {@link #worldCommunicator}.
 */
public final class CommWorld {
    private final Machine machine;
    private final Mailbox[] mailboxes;
    private final Group worldGroup;
    private final Map<Long, Group> groups = new HashMap<>();
    /** Frames for groups not formed here yet (copied), by group key; replayed by the agent once the group forms. */
    private final Map<Long, List<Frame>> parked = new HashMap<>();
    private final EmCollectives collectives;
    private final Interconnect network;
    private final Remote remote;
    private final RemotePointToPoint elsewhere;
    private final ThreadLocal<Vp> current = new ThreadLocal<>();
    private long spoolUsed;
    /** Each VP's calls of {@link #spanningGroup} so far, by VP and members. */
    private final Map<String, Long> spanningCalls = new HashMap<>();
    /** The createGroup tag of spanning groups: negative, so never a user's. */
    private static final int SPANNING_TAG = Integer.MIN_VALUE;

    /** The world of a simulation on one real processor. */
    public CommWorld(Machine machine) {
        this(machine, null);
    }

    /** The world of real processor {@code network.processor()} of several; {@code network} is not started yet. */
    public CommWorld(Machine machine, Interconnect network) {
        this.machine = machine;
        this.network = network;
        int v = machine.options().vps();
        this.mailboxes = new Mailbox[machine.vpCount()];
        int[] all = new int[v];
        for (int t = 0; t < v; t++) {
            all[t] = t;
        }
        this.worldGroup = newGroup(Group.WORLD, all);
        register(worldGroup);
        this.remote = network == null ? null : new Remote(this);
        this.elsewhere = network == null ? null : new RemotePointToPoint(this, remote);
        this.collectives = new EmCollectives(this);
        if (network != null) {
            machine.scheduler().expectRemoteEvents();
        }
    }

    /** The world communicator of VP {@code vp}; call on that VP's thread, which it binds to the VP. */
    public EmCommunicator worldCommunicator(Vp vp) {
        current.set(vp);
        return new EmCommunicator(this, worldGroup, vp);
    }

    /** What handles the frames of other real processors (the collectives' side of the network). */
    public FrameHandler frameHandler() {
        return new FrameDispatch(this, collectives);
    }

    /** The VP whose thread this is, or null. */
    Vp currentVp() {
        return current.get();
    }

    Machine machine() {
        return machine;
    }

    EmBspOptions options() {
        return machine.options();
    }

    /**
     * Waits, holding the partition, until {@code condition} holds (evaluated under the scheduler's
     * lock): only for what depends on no VP here (a fetch another VP makes, frames from elsewhere).
     * Ends with the run's abort, a failed network, or an interrupt.
     */
    void awaitHolding(BooleanSupplier condition, String what) {
        PollingWait.until(() -> {
            scheduler().lock().lock();
            try {
                return condition.getAsBoolean();
            } finally {
                scheduler().lock().unlock();
            }
        }, () -> {
            LockstepException aborted = scheduler().aborted();
            if (aborted != null) {
                throw aborted;
            }
            if (network() != null) {
                network().checkHealthy();
            }
        }, condition, what);
    }

    Scheduler scheduler() {
        return machine.scheduler();
    }

    /** The network to the other real processors, or null with one. */
    Interconnect network() {
        return network;
    }

    /** Frames, pulls and agent I/O; null with one real processor. */
    Remote remote() {
        return remote;
    }

    /**
     * VP {@code vp}'s mailbox, made on first use: the SPI's matching engine keeps two queues per
     * possible sender, so v mailboxes made up front would cost memory in v², even for programs that
     * only use collectives.
     */
    Mailbox mailbox(int vp) {
        scheduler().lock().lock();
        try {
            int index = vp - machine.firstVp();
            Mailbox box = mailboxes[index];
            if (box == null) {
                box = new Mailbox(options().vps());
                mailboxes[index] = box;
            }
            return box;
        } finally {
            scheduler().lock().unlock();
        }
    }

    /** Point-to-point with VPs of other real processors; null with one. */
    RemotePointToPoint elsewhere() {
        return elsewhere;
    }

    EmCollectives collectives() {
        return collectives;
    }

    private Group newGroup(long key, int[] members) {
        return new Group(key, members, machine.options()::processorOf, machine.options().processor());
    }

    /** The group {@code key} of {@code members}, made and registered if it is new here (scheduler lock held). */
    Group group(long key, int[] members) {
        Group g = groups.get(key);
        if (g == null) {
            g = newGroup(key, members);
            register(g);
        }
        return g;
    }

    /**
     * Registers {@code g} and its collective twin ({@link Group#collectiveGroup()}): frames name
     * either by key, and another processor's frames for them may have arrived (and been parked) first.
     */
    private void register(Group g) {
        for (Group each : new Group[] {g, g.collectiveGroup()}) {
            groups.put(each.key(), each);
            List<Frame> waiting = parked.remove(each.key());
            if (waiting != null && remote != null) {
                remote.replay(waiting);
            }
        }
    }

    /** The group {@code key} if it has formed here, else null after parking a copy of {@code frame} for it (scheduler lock held). */
    Group groupOrPark(long key, Frame frame) {
        Group g = groups.get(key);
        if (g == null) {
            MemorySegment copy = MemorySegment.ofArray(frame.payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            parked.computeIfAbsent(key, k -> new ArrayList<>()).add(frame.with(copy));
        }
        return g;
    }

    /**
     * The group that the members of {@code members} (VP ids) make from {@code parent} with {@code tag}
     * in their {@code call}-th such call ({@code MPI_Comm_create_group}): its key is derived from those,
     * so every member, on every real processor, takes the same group without talking.
     */
    Group createGroup(Group parent, int tag, int[] members, long call) {
        scheduler().lock().lock();
        try {
            return group(Group.createdKey(parent.key(), tag, members, call), members);
        } finally {
            scheduler().lock().unlock();
        }
    }

    /**
     * The group of the VPs {@code members} spanning several communicators (an intercommunicator's
     * bridge) in VP {@code vp}'s {@code n}-th such call over exactly those members: every member
     * takes part in each of them, so each counts the same {@code n} and all take the same group
     * without talking.
     */
    Group spanningGroup(int vp, int[] members) {
        scheduler().lock().lock();
        try {
            long call = spanningCalls.merge(vp + " " + Arrays.toString(members), 1L, Long::sum);
            return group(Group.createdKey(Group.WORLD, SPANNING_TAG, members, call), members);
        } finally {
            scheduler().lock().unlock();
        }
    }

    /** Reserves spool memory for an eager message (scheduler lock held); false if the budget is spent. */
    boolean reserveSpool(long bytes) {
        if (spoolUsed + bytes > machine.options().spool()) {
            return false;
        }
        spoolUsed += bytes;
        return true;
    }

    /**
     * Takes spool memory for an eager message from another real processor, whose bytes are on
     * their way and cannot be refused: past the budget if need be (scheduler lock held).
     */
    void overdrawSpool(long bytes) {
        spoolUsed += bytes;
    }

    /** Returns spool memory (scheduler lock held). */
    void releaseSpool(MemorySegment copy) {
        spoolUsed -= copy.byteSize();
    }

    /** The swap-out a waiting VP runs when its partition is wanted. */
    Runnable swapOut(Vp vp) {
        return () -> vp.context().swapOut(vp.meters());
    }

    /** The swap-in after a wait. */
    Runnable swapIn(Vp vp) {
        return () -> vp.context().swapIn(vp.superstep(), vp.meters());
    }
}
