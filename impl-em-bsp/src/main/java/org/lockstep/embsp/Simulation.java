package org.lockstep.embsp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.RankProgram;
import org.lockstep.embsp.comm.CommWorld;
import org.lockstep.embsp.io.IoMeter;
import org.lockstep.embsp.io.IoSnapshot;
import org.lockstep.embsp.net.Interconnect;
import org.lockstep.embsp.sim.Accounting;
import org.lockstep.embsp.sim.CallRecord;
import org.lockstep.embsp.sim.Machine;
import org.lockstep.embsp.sim.Vp;

/**
 * Runs one program as v virtual processors — on one {@link Machine}, or on P of them in P
 * processes, each simulating v/P and talking to the others through an {@link Interconnect} —
 * and reports what it did.
 */
public final class Simulation {
    private static final System.Logger LOG = System.getLogger(Simulation.class.getName());

    private Simulation() {
    }

    /**
     * Runs {@code program} under {@code job}'s EM-BSP options; returns the report once every VP has
     * ended. Writes the stats line and bench file if the options ask for them.
     *
     * @throws LockstepException if a VP threw: the first failure is the cause, the others suppressed
     */
    public static RunReport run(JobOptions job, RankProgram program) {
        EmBspOptions options = EmBspOptions.from(job);
        RunReport report;
        try (Machine machine = Machine.open(options)) {
            // after the set-up: filling a kept disk is no I/O of the run's
            long[] kernelBefore = kernelIo();
            CommWorld world = new CommWorld(machine);
            Outcome outcome = runVps(machine, world, program, null);
            report = report(machine, kernelBefore, 0);
            if (outcome.cause() != null) {
                throw outcome.failure();
            }
        }
        writeOutputs(options, report);
        return report;
    }

    /**
     * Runs real processor {@code network.rank()} of {@code network.size()}: its v/P VPs of
     * {@code program}, talking to the other processors through {@code network} (the world of a
     * messaging provider, one rank per processor). At start every processor checks that all share
     * the simulation's parameters; at the end processor 0 writes the whole run's report. A failure
     * here fails every processor: the others get {@code PROC_FAILED}.
     *
     * @throws LockstepException a setup failure or parameter mismatch (on every processor), or the first failure of a VP
     */
    public static RunReport runProcessor(JobOptions job, Communicator network, RankProgram program) {
        int processors = network.size();
        int processor = network.rank();
        EmBspOptions options = null;
        Machine machine = null;
        String setupFailure = null;
        try {
            options = EmBspOptions.ofProcessor(job, processors, processor);
            machine = Machine.open(options);
        } catch (LockstepException e) {
            setupFailure = "[" + e.errorClass().mpiName() + "] " + e.getMessage();
        }
        long[] kernelBefore = kernelIo(); // after the set-up: filling a kept disk is no I/O of the run's
        long frame = options != null ? options.frameBytes() : EmBspOptions.DEFAULT_FRAME;
        try (Interconnect link = new Interconnect(network, frame)) {
            try {
                link.handshake(options == null ? "" : options.sharedParameters(), setupFailure == null ? null
                        : "real processor " + processor + " could not start: " + setupFailure);
            } catch (LockstepException e) {
                if (machine != null) {
                    machine.close();
                }
                throw e;
            }
            try (Machine m = machine) {
                CommWorld world = new CommWorld(m, link);
                link.start(world.frameHandler());
                Outcome outcome = runVps(m, world, program, link);
                if (outcome.cause() != null) {
                    link.abort("VP " + m.scheduler().firstFailedVp() + " failed: " + outcome.cause());
                    throw outcome.failure();
                }
                RunReport mine = report(m, kernelBefore, link.sentBytes());
                List<byte[]> all = link.finish(ProcessorReports.encode(mine));
                RunReport whole = ProcessorReports.merge(mine, all);
                if (processor == 0) {
                    writeOutputs(options, whole);
                }
                return whole;
            }
        }
    }

    /** How long an interrupted run waits for its VP threads to unwind. */
    private static final java.time.Duration VP_STOP_WAIT = java.time.Duration.ofSeconds(10);

    /** How the VPs of one processor ended: the first failure (null if none) and each VP's. */
    private record Outcome(Throwable cause, AtomicReferenceArray<Throwable> failures) {
        /** The run's failure: the first one the cause, the others suppressed. */
        LockstepException failure() {
            LockstepException summary = new LockstepException(cause instanceof LockstepException le ? le.errorClass() : ErrorClass.OTHER,
                    "EM-BSP run failed: " + cause, cause);
            for (int t = 0; t < failures.length(); t++) {
                Throwable f = failures.get(t);
                if (f != null && f != cause && summary.getSuppressed().length < 16) {
                    summary.addSuppressed(f);
                }
            }
            return summary;
        }
    }

    /** Runs every VP of {@code machine} to its end. */
    private static Outcome runVps(Machine machine, CommWorld world, RankProgram program, Interconnect link) {
        AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(machine.vpCount());
        Thread progress = startProgress(machine);
        List<Thread> threads = new ArrayList<>(machine.vpCount());
        for (int t = 0; t < machine.vpCount(); t++) {
            Vp vp = machine.vp(machine.firstVp() + t);
            threads.add(machine.threads().start("lockstep-vp-" + vp.id(), () -> runVp(machine, world, vp, program, failures, link)));
        }
        try {
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            throw stopOnInterrupt(machine, threads);
        } finally {
            if (progress != null) {
                progress.interrupt();
            }
        }
        return new Outcome(machine.scheduler().firstFailure(), failures);
    }

    private static void runVp(Machine machine, CommWorld world, Vp vp, RankProgram program,
                              AtomicReferenceArray<Throwable> failures, Interconnect link) {
        Throwable failure = null;
        try {
            machine.scheduler().begin(vp);
            vp.context().swapIn(vp.superstep(), vp.meters());
            program.run(world.worldCommunicator(vp));
        } catch (Throwable t) {
            failure = t;
            failures.set(vp.id() - machine.firstVp(), t);
            if (link != null && !(t instanceof ProcessFailedException)) {
                // the job fails: the VPs here and on the other processors stop waiting
                link.announceFailure("VP " + vp.id() + " failed: " + t);
                machine.scheduler().abort(new ProcessFailedException(ErrorClass.PROC_FAILED, vp.id(), "VP " + vp.id()
                        + " on real processor " + machine.options().processor() + " failed: " + t));
            }
        } finally {
            vp.context().discard();
            vp.accounting().finished(vp.superstep());
            machine.scheduler().finish(vp, failure);
        }
    }

    private static RunReport report(Machine machine, long[] kernelBefore, long networkBytes) {
        Accounting a = machine.accounting();
        List<IoSnapshot> perSuperstep = new ArrayList<>();
        for (IoMeter m : a.superstepMeters()) {
            perSuperstep.add(m.snapshot());
        }
        List<CallRecord> calls = a.calls();
        long bound = 0;
        for (CallRecord c : calls) {
            bound += c.boundBytes();
        }
        long[] kernelAfter = kernelIo();
        long read = kernelBefore[0] < 0 || kernelAfter[0] < 0 ? -1 : kernelAfter[0] - kernelBefore[0];
        long write = kernelBefore[1] < 0 || kernelAfter[1] < 0 ? -1 : kernelAfter[1] - kernelBefore[1];
        EmBspOptions o = machine.options();
        return new RunReport(o, machine.store().driverName(), machine.threads().name(), machine.store().direct(),
                machine.store().layout().striped(), a.superstepCount(), a.elapsedSeconds(), a.world().snapshot(),
                a.pointToPoint().snapshot(), perSuperstep, a.superstepSeconds(), calls, bound, machine.blockPool().peakBytes(),
                machine.partitionBytes(), read, write, networkBytes, new long[] {peakResidentBytes()});
    }

    private static void writeOutputs(EmBspOptions options, RunReport report) {
        try {
            if (options.statsOut().isPresent()) {
                Path out = options.statsOut().get();
                Files.writeString(out, report.keyValueLine() + System.lineSeparator(), StandardCharsets.UTF_8);
            }
            if (options.benchOut().isPresent()) {
                report.writeBench(options.benchOut().get());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the EM-BSP report: " + e.getMessage(), e);
        }
    }

    private static Thread startProgress(Machine machine) {
        long seconds = machine.options().progressSeconds();
        if (seconds <= 0) {
            return null;
        }
        return Thread.ofPlatform().daemon(true).name("lockstep-embsp-progress").start(() -> {
            Accounting a = machine.accounting();
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(seconds * 1000);
                } catch (InterruptedException e) {
                    return;
                }
                LOG.log(System.Logger.Level.INFO, () -> String.format(Locale.ROOT,
                        "embsp: %.0f s, superstep %d, %d of %d VPs running, swap %d MiB, delivery %d MiB",
                        a.elapsedSeconds(), a.superstepCount() - 1, machine.scheduler().live(), machine.vpCount(),
                        a.world().swapBytes() >> 20, a.world().deliveryBytes() >> 20));
            }
        });
    }

    /** VmHWM of /proc/self/status in bytes, or -1 where there is none. */
    static long peakResidentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }

    /** read_bytes and write_bytes of /proc/self/io, or -1 each where that file is missing. */
    static long[] kernelIo() {
        long[] io = {-1, -1};
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
                if (line.startsWith("read_bytes:")) {
                    io[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                } else if (line.startsWith("write_bytes:")) {
                    io[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the report says -1
        }
        return io;
    }

    /**
     * The thread that runs the simulation was interrupted (a test's timeout, a cancelled task): every
     * wait of the VPs fails with an error naming what each VP was waiting for, so that their threads
     * unwind (bounded) before the machine is closed; the interrupt stays set for the caller.
     */
    private static LockstepException stopOnInterrupt(Machine machine, List<Thread> threads) {
        LockstepException stopped = new LockstepException(ErrorClass.OTHER, "EM-BSP run interrupted while "
                + machine.scheduler().describeUnfinished());
        machine.scheduler().abort(stopped);
        long deadline = System.nanoTime() + VP_STOP_WAIT.toNanos();
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            boolean ended = false;
            while (!ended && left > 0) {
                try {
                    ended = t.join(java.time.Duration.ofNanos(left));
                } catch (InterruptedException again) {
                    // already stopping: the interrupt is set again below
                }
                left = deadline - System.nanoTime();
            }
        }
        Thread.currentThread().interrupt();
        return stopped;
    }
}
