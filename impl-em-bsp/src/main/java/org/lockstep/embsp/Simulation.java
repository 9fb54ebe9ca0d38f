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

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.RankProgram;
import org.lockstep.embsp.comm.CommWorld;
import org.lockstep.embsp.io.IoMeter;
import org.lockstep.embsp.io.IoSnapshot;
import org.lockstep.embsp.sim.Accounting;
import org.lockstep.embsp.sim.CallRecord;
import org.lockstep.embsp.sim.Machine;
import org.lockstep.embsp.sim.Vp;

/** Runs one program as v virtual processors on one {@link Machine} and reports what it did. */
public final class Simulation {
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
        long[] kernelBefore = kernelIo();
        RunReport report;
        AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(options.vps());
        Throwable cause;
        try (Machine machine = Machine.open(options)) {
            CommWorld world = new CommWorld(machine);
            Thread progress = startProgress(machine);
            List<Thread> threads = new ArrayList<>(options.vps());
            for (int t = 0; t < options.vps(); t++) {
                Vp vp = machine.vp(t);
                threads.add(machine.threads().start("lockstep-vp-" + t, () -> runVp(machine, world, vp, program, failures)));
            }
            for (Thread t : threads) {
                joinUninterruptibly(t);
            }
            if (progress != null) {
                progress.interrupt();
            }
            cause = machine.scheduler().firstFailure();
            report = report(machine, kernelBefore);
        }
        if (cause == null) {
            writeOutputs(options, report);
            return report;
        }
        LockstepException summary = new LockstepException(cause instanceof LockstepException le ? le.errorClass() : ErrorClass.OTHER,
                "EM-BSP run failed: " + cause, cause);
        for (int t = 0; t < options.vps(); t++) {
            Throwable f = failures.get(t);
            if (f != null && f != cause && summary.getSuppressed().length < 16) {
                summary.addSuppressed(f);
            }
        }
        throw summary;
    }

    private static void runVp(Machine machine, CommWorld world, Vp vp, RankProgram program,
                              AtomicReferenceArray<Throwable> failures) {
        Throwable failure = null;
        try {
            machine.scheduler().begin(vp);
            vp.context().swapIn(vp.meters());
            program.run(world.worldCommunicator(vp));
        } catch (Throwable t) {
            failure = t;
            failures.set(vp.id(), t);
        } finally {
            vp.context().discard();
            vp.accounting().finished(vp.superstep());
            machine.scheduler().finish(vp, failure);
        }
    }

    private static RunReport report(Machine machine, long[] kernelBefore) {
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
                machine.partitionBytes(), read, write);
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
                System.err.printf(Locale.ROOT, "embsp: %.0f s, superstep %d, %d of %d VPs running, swap %d MiB, delivery %d MiB%n",
                        a.elapsedSeconds(), a.superstepCount() - 1, machine.scheduler().live(), machine.vpCount(),
                        a.world().swapBytes() >> 20, a.world().deliveryBytes() >> 20);
            }
        });
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

    private static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
