package org.lockstep.api;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * An {@link AttachedWorld} over a provider that only runs {@link RankProgram}s: a keeper thread
 * runs a program that hands its world to the attaching thread and then waits until that thread
 * leaves. The world is then used from a thread other than the one the provider ran the program
 * on, which suits providers whose communicators are not bound to a thread.
 */
final class KeptRank implements AttachedWorld {
    private final Communicator world;
    private final Thread keeper;
    private final CountDownLatch left = new CountDownLatch(1);
    private volatile Throwable failure;

    private KeptRank(Communicator world, Thread keeper) {
        this.world = world;
        this.keeper = keeper;
    }

    /** Starts a keeper thread that gives {@code runner} the program to run; returns once the program has its world. */
    static AttachedWorld start(String name, Consumer<RankProgram> runner) {
        CompletableFuture<Communicator> handedOver = new CompletableFuture<>();
        CompletableFuture<KeptRank> self = new CompletableFuture<>();
        RankProgram program = world -> {
            handedOver.complete(world);
            KeptRank rank = self.join();
            rank.left.await();
            if (rank.failure != null) {
                throw new LockstepException(ErrorClass.OTHER, "the attached rank failed: " + rank.failure, rank.failure);
            }
        };
        Thread keeper = Thread.ofPlatform().name(name).daemon().start(() -> {
            try {
                runner.accept(program);
            } catch (Throwable t) {
                handedOver.completeExceptionally(t); // no effect once the world was handed over
            }
        });
        Communicator world;
        try {
            world = handedOver.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockstepException(ErrorClass.OTHER, "interrupted while joining the world");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof LockstepException le) {
                throw le;
            }
            throw new LockstepException(ErrorClass.OTHER, "could not join the world: " + e.getCause(), e.getCause());
        }
        KeptRank rank = new KeptRank(world, keeper);
        self.complete(rank);
        return rank;
    }

    @Override
    public Communicator world() {
        return world;
    }

    @Override
    public void fail(Throwable cause) {
        failure = cause;
        leave();
    }

    @Override
    public void close() {
        leave();
    }

    private void leave() {
        left.countDown();
        boolean interrupted = false;
        while (keeper.isAlive()) {
            try {
                keeper.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
