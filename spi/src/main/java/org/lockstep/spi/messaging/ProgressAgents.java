package org.lockstep.spi.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Work a rank must do whenever it is inside the library, whatever it waits for: the target side of
 * a point-to-point window answers passive-target requests this way (MPI's progress rule: a rank
 * progresses inside its own calls). Agents belong to the thread that registered them (the rank's),
 * and waits that drive the SPI's progress ({@link AbstractRequest}, the schedules) run them.
 */
public final class ProgressAgents {
    private static final ThreadLocal<List<BooleanSupplier>> AGENTS = ThreadLocal.withInitial(ArrayList::new);
    /** Agents registered on any thread: most waits find none and skip the thread-local. */
    private static final AtomicInteger REGISTERED = new AtomicInteger();

    private ProgressAgents() {
    }

    /** Runs {@code agent} (which returns whether it did anything) from this thread's waits until {@link #unregister}. */
    public static void register(BooleanSupplier agent) {
        AGENTS.get().add(agent);
        REGISTERED.incrementAndGet();
    }

    public static void unregister(BooleanSupplier agent) {
        if (AGENTS.get().remove(agent)) {
            REGISTERED.decrementAndGet();
        }
    }

    /** Whether this thread has agents: a provider whose waits block without running them polls instead while it has. */
    public static boolean present() {
        return REGISTERED.get() > 0 && !AGENTS.get().isEmpty();
    }

    /**
     * This thread's agents as one (run once, whether any did something), or null if it has none: for
     * a provider that has another thread run them while this one is blocked inside a call that cannot
     * (a native library's). The provider must keep the two threads from running them at once, and
     * order what each did before the other's next run (a lock handed between them).
     */
    public static BooleanSupplier ofThisThread() {
        if (!present()) {
            return null;
        }
        BooleanSupplier[] mine = AGENTS.get().toArray(new BooleanSupplier[0]);
        return () -> {
            boolean moved = false;
            for (BooleanSupplier agent : mine) {
                moved |= agent.getAsBoolean();
            }
            return moved;
        };
    }

    /** Runs this thread's agents once; returns whether any did something. */
    public static boolean advance() {
        if (REGISTERED.get() == 0) {
            return false;
        }
        List<BooleanSupplier> mine = AGENTS.get();
        boolean moved = false;
        for (BooleanSupplier agent : mine.toArray(new BooleanSupplier[0])) {
            moved |= agent.getAsBoolean();
        }
        return moved;
    }
}
