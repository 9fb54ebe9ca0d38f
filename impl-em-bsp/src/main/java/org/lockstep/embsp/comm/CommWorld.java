package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.embsp.EmBspOptions;
import org.lockstep.embsp.sim.Machine;
import org.lockstep.embsp.sim.Scheduler;
import org.lockstep.embsp.sim.Vp;

/**
 * The communication state of one simulation: every VP's mailbox, the groups of its
 * communicators, the budget of buffered (eager) point-to-point messages, and the EM-BSP
 * collective engine. The world communicator of each VP comes from {@link #worldCommunicator}.
 */
public final class CommWorld {
    private final Machine machine;
    private final Mailbox[] mailboxes;
    private final Group worldGroup;
    private final EmCollectives collectives;
    private final ThreadLocal<Vp> current = new ThreadLocal<>();
    private int nextGroupId = 1;
    private long spoolUsed;

    public CommWorld(Machine machine) {
        this.machine = machine;
        int v = machine.vpCount();
        this.mailboxes = new Mailbox[v];
        int[] all = new int[v];
        for (int t = 0; t < v; t++) {
            all[t] = t;
        }
        this.worldGroup = new Group(0, all);
        this.collectives = new EmCollectives(this);
    }

    /** The world communicator of VP {@code vp}; call on that VP's thread, which it binds to the VP. */
    public EmCommunicator worldCommunicator(Vp vp) {
        current.set(vp);
        return new EmCommunicator(this, worldGroup, vp);
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

    Scheduler scheduler() {
        return machine.scheduler();
    }

    /**
     * VP {@code vp}'s mailbox, made on first use: the SPI's matching engine keeps two queues per
     * possible sender, so v mailboxes made up front would cost memory in v², even for programs that
     * only use collectives.
     */
    Mailbox mailbox(int vp) {
        scheduler().lock().lock();
        try {
            Mailbox box = mailboxes[vp];
            if (box == null) {
                box = new Mailbox(mailboxes.length);
                mailboxes[vp] = box;
            }
            return box;
        } finally {
            scheduler().lock().unlock();
        }
    }

    EmCollectives collectives() {
        return collectives;
    }

    /** A new group id (scheduler lock held). */
    int newGroupId() {
        return nextGroupId++;
    }

    /** Reserves spool memory for an eager message (scheduler lock held); false if the budget is spent. */
    boolean reserveSpool(long bytes) {
        if (spoolUsed + bytes > machine.options().spool()) {
            return false;
        }
        spoolUsed += bytes;
        return true;
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
        return () -> vp.context().swapIn(vp.meters());
    }
}
