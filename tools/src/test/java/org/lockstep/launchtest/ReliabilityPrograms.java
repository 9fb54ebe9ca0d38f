package org.lockstep.launchtest;

import java.nio.file.Files;
import java.nio.file.Path;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;

/**
 * Programs that the reliability tests start as separate processes: jobs that wait where the test
 * wants them, so that it can kill a launcher, stop a rank or start a second job meanwhile.
 */
public final class ReliabilityPrograms {
    private ReliabilityPrograms() {
    }

    public static void main(String[] args) {
        JobOptions options = JobOptions.ofRanks(2).with("lockstep.mailbox.heapPerRank", "256k");
        switch (args[0]) {
            case "hold" -> Lockstep.run(options, world -> hold(world, Path.of(args[1])));
            case "ring" -> Lockstep.run(options, ReliabilityPrograms::ring);
            case "wait-on-rank-1" -> Lockstep.run(options, ReliabilityPrograms::waitOnRankOne);
            case "typed-failure" -> Lockstep.run(options, world -> {
                throw new LockstepException(ErrorClass.ARG, "rank " + world.rank() + " rejects its input");
            });
            default -> throw new IllegalArgumentException("no program " + args[0]);
        }
    }

    /** One message around the ring. */
    static void ring(Communicator world) {
        int[] token = {world.rank()};
        int[] got = new int[1];
        int n = world.size();
        Request receive = world.irecv(got, (world.rank() + n - 1) % n, 1);
        world.send(token, (world.rank() + 1) % n, 1);
        receive.await();
        if (got[0] != (world.rank() + n - 1) % n) {
            throw new AssertionError("rank " + world.rank() + " got " + got[0]);
        }
        System.out.println("rank " + world.rank() + " ring OK");
    }

    /**
     * Every rank says it holds; then rank 1 sleeps (the test stops it with SIGSTOP) and the others
     * wait for a message from it, which must end in PROC_FAILED: they print when, and fail.
     */
    static void waitOnRankOne(Communicator world) {
        world.barrier();
        System.out.println("rank " + world.rank() + " pid " + ProcessHandle.current().pid() + " holding");
        if (world.rank() == 1) {
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
        try {
            world.recv(new int[1], 1, 7);
            throw new AssertionError("rank " + world.rank() + " received from the stopped rank");
        } catch (ProcessFailedException e) {
            System.out.println("rank " + world.rank() + " saw rank 1 fail at " + System.nanoTime() + ": " + e.getMessage());
            throw e;
        }
    }

    /** Every rank says it holds (with its process id), then waits until {@code release} exists; then they end together. */
    static void hold(Communicator world, Path release) {
        world.barrier();
        System.out.println("rank " + world.rank() + " pid " + ProcessHandle.current().pid() + " holding");
        while (!Files.exists(release)) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        world.barrier();
        System.out.println("rank " + world.rank() + " released");
    }
}
