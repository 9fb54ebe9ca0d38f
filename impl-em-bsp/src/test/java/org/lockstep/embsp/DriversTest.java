package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Op;
import org.lockstep.embsp.sim.CallRecord;

/** The thread drivers: k VPs at most run at once, the sequential driver is reproducible, virtual threads scale. */
class DriversTest {
    @Test
    void atMostKVirtualProcessorsRunAtOnce() {
        for (String threads : new String[] {"platform", "virtual", "sequential"}) {
            int k = threads.equals("sequential") ? 1 : 3;
            AtomicInteger running = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            JobOptions job = TestJobs.job(12, 3, 64 << 10, 4096).with(EmBspOptions.THREADS, threads);
            Simulation.run(job, w -> {
                for (int step = 0; step < 5; step++) {
                    int now = running.incrementAndGet();
                    most.accumulateAndGet(now, Math::max);
                    long spin = System.nanoTime() + 200_000;
                    while (System.nanoTime() < spin) {
                        Thread.onSpinWait();
                    }
                    running.decrementAndGet();
                    w.barrier();
                }
            });
            assertTrue(most.get() <= k, threads + ": " + most.get() + " VPs ran at once on k = " + k);
            assertTrue(most.get() >= 1);
        }
    }

    @Test
    void theSequentialDriverIsReproducible() {
        List<String> first = orderOfArrivals();
        List<String> second = orderOfArrivals();
        assertEquals(first, second);
        assertEquals(24, first.size() - 1);
    }

    /** The order in which rank 0 matches ANY_SOURCE messages, and the run's I/O, under the sequential driver. */
    private static List<String> orderOfArrivals() {
        List<String> order = new ArrayList<>();
        JobOptions job = TestJobs.job(7, 2, 64 << 10, 4096).with(EmBspOptions.THREADS, "sequential");
        RunReport report = Simulation.run(job, w -> {
            MemorySegment state = w.allocate(20_000);
            state.fill((byte) w.rank());
            for (int round = 0; round < 4; round++) {
                if (w.rank() == 0) {
                    long[] got = new long[1];
                    for (int i = 0; i < w.size() - 1; i++) {
                        var s = w.recv(got, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                        order.add(s.source() + ":" + got[0]);
                    }
                } else {
                    w.send(new long[] {round}, 0, w.rank());
                }
                w.barrier();
            }
        });
        StringBuilder io = new StringBuilder();
        for (CallRecord c : report.calls()) {
            io.append(c.operation()).append(c.counted().totalBytes()).append(' ');
        }
        order.add(io.toString() + report.total().totalBytes());
        return order;
    }

    /**
     * The sequential driver leaves a VP waiting when a signal fires whose condition is not its
     * own (here: another message reaches VP 0's mailbox before the one it waits for); the VP must
     * stay registered on the signal, or the message it does wait for never wakes it. Before the
     * fix this was reported as a deadlock (it was COMM.04's, on intercommunicators).
     */
    @Test
    void aWaiterWokenTooEarlyByTheSequentialDriverStillHearsItsOwnSignal() {
        JobOptions job = TestJobs.job(3, 1, 64 << 10, 4096).with(EmBspOptions.THREADS, "sequential");
        long[] gotFirst = new long[1];
        Simulation.run(job, w -> {
            long[] value = new long[1];
            switch (w.rank()) {
                case 0 -> {
                    w.recv(value, 1, 1);
                    gotFirst[0] = value[0];
                    w.recv(value, 2, 2);
                    if (value[0] != 22) {
                        throw new AssertionError("the other message: " + value[0]);
                    }
                }
                case 1 -> {
                    w.recv(value, 2, 3);
                    w.send(new long[] {11}, 0, 1);
                }
                default -> {
                    w.send(new long[] {22}, 0, 2);
                    w.send(new long[] {33}, 1, 3);
                }
            }
        });
        assertEquals(11, gotFirst[0]);
    }

    @Test
    void thousandsOfVirtualProcessorsOnVirtualThreads() {
        int v = 2048;
        JobOptions job = TestJobs.job(v, 2, 8192, 4096).with(EmBspOptions.THREADS, "virtual")
                .with(EmBspOptions.DIRECT, System.getProperty("embsp.scale.direct", "false"));
        ConcurrentHashMap<Integer, Long> sums = new ConcurrentHashMap<>();
        RunReport report = Simulation.run(job, w -> {
            MemorySegment x = w.allocate(8);
            MemorySegment y = w.allocate(8);
            x.set(ValueLayout.JAVA_LONG, 0, w.rank());
            w.barrier();
            w.allreduce(x, y, 1, Datatype.LONG, Op.SUM);
            w.scan(x, y, 1, Datatype.LONG, Op.SUM);
            sums.put(w.rank(), y.get(ValueLayout.JAVA_LONG, 0));
            w.bcast(x, 1, Datatype.LONG, v - 1);
            if (x.get(ValueLayout.JAVA_LONG, 0) != v - 1) {
                throw new AssertionError("bcast");
            }
        });
        assertEquals(v, sums.size());
        assertEquals((long) (v - 1) * v / 2, sums.get(v - 1));
        assertEquals(v, report.options().vps());
        assertTrue(report.withinBounds());
    }
}
