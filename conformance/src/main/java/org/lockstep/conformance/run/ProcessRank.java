package org.lockstep.conformance.run;

import java.nio.file.Files;
import java.nio.file.Path;

import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.ProcessFailedException;

/**
 * One rank of a kit job of separate processes ({@link ProcessJob}), started as a launcher starts
 * ranks: the {@code LOCKSTEP_*} variables say its rank, the world, the device and the job's
 * properties, and {@link Lockstep#run} joins it to the provider's world. Each program prints the
 * lines the kit's rule reads.
 */
public final class ProcessRank {
    private ProcessRank() {
    }

    public static void main(String[] args) {
        switch (args[0]) {
            case "hold" -> Lockstep.run(JobOptions.ofRanks(1), world -> hold(world, Path.of(args[1])));
            case "wait-on-rank-1" -> Lockstep.run(JobOptions.ofRanks(1), ProcessRank::waitOnRankOne);
            case "windows" -> Lockstep.run(JobOptions.ofRanks(1), WindowProcessProgram::run);
            default -> throw new IllegalArgumentException("no program " + args[0]);
        }
    }

    /** Says it holds, with its process id, then waits until {@code release} exists. */
    static void hold(Communicator world, Path release) {
        world.barrier();
        System.out.println("rank " + world.rank() + " pid " + ProcessHandle.current().pid() + " holding");
        while (!Files.exists(release)) {
            sleep();
        }
    }

    /** Says it holds; rank 1 then idles, the others wait for a message from it and print how that ended. */
    static void waitOnRankOne(Communicator world) {
        world.barrier();
        System.out.println("rank " + world.rank() + " pid " + ProcessHandle.current().pid() + " holding");
        if (world.rank() == 1) {
            while (true) {
                sleep();
            }
        }
        try {
            world.recv(new int[1], 1, 7);
            System.out.println("rank " + world.rank() + " received from rank 1");
        } catch (ProcessFailedException e) {
            System.out.println("rank " + world.rank() + " saw rank " + e.failedRank() + " fail at " + System.nanoTime() + ": "
                    + e.errorClass());
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
