package org.lockstep.launchtest;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.Op;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

/**
 * Programs that the launched-job tests start as separate processes ({@code lockstep run}). Each
 * checks what MPI promises and exits non-zero (an uncaught {@link AssertionError}) if a promise is
 * broken. They live outside the tools module's packages so that a launched JVM loads them from
 * its class path. The first argument names the program.
 */
public final class LaunchedPrograms {
    /** Small, so that sizes around the threshold and fragmented messages are cheap. */
    static final int THRESHOLD = 256;

    private LaunchedPrograms() {
    }

    public static void main(String[] args) throws Exception {
        JobOptions options = JobOptions.ofRanks(2)
                .with("lockstep.mailbox.inlineThreshold", Integer.toString(THRESHOLD))
                .with("lockstep.mailbox.heapPerRank", "256k")
                .with("lockstep.mailbox.fragment", "16k");
        switch (args[0]) {
            case "point-to-point" -> Lockstep.run(options, LaunchedPrograms::pointToPoint);
            case "kill-rank-1" -> Lockstep.run(options, LaunchedPrograms::killRankOne);
            case "job-ring" -> Lockstep.run(options, world -> jobRing(world, Long.parseLong(args[1])));
            // room for the direct collectives' device buffers beside payloads not yet reclaimed (256k left them short at times)
            case "collectives" -> Lockstep.run(options.with("lockstep.mailbox.heapPerRank", "2m"), LaunchedPrograms::collectives);
            case "checkpoint-ring" -> Lockstep.run(options.with("lockstep.mailbox.heapPerRank", "2m"),
                    world -> checkpointRing(world, Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3])));
            case "die-until" -> dieUntil(Integer.parseInt(args[1]), Integer.parseInt(args[2]), java.nio.file.Path.of(args[3]));
            default -> throw new IllegalArgumentException("no program " + args[0]);
        }
    }

    /** The point-to-point promises of the transport, across processes. */
    static void pointToPoint(Communicator world) {
        int me = world.rank();
        int n = world.size();
        // Floods from every rank to rank 0, sizes across the threshold and fragmented: per-sender order.
        int perSender = 200;
        if (me != 0) {
            Request[] sends = new Request[perSender];
            for (int i = 0; i < perSender; i++) {
                int length = sizeOf(i);
                sends[i] = world.isend(pattern(me, 0, i, length), length, Datatype.BYTE, 0, i);
            }
            Request.waitAll(sends);
        } else {
            int[] next = new int[n];
            MemorySegment buffer = MemorySegment.ofArray(new byte[sizeOf(3)]);
            for (int k = 0; k < (n - 1) * perSender; k++) {
                Status s = world.recv(buffer, buffer.byteSize(), Datatype.BYTE, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                check(s.tag() == next[s.source()], "rank " + s.source() + ": message " + s.tag() + " overtook " + next[s.source()]);
                check(s.byteCount() == sizeOf(s.tag()), "length of message " + s.tag() + " from " + s.source());
                checkPattern(buffer, s.source(), 0, s.tag(), s.byteCount());
                next[s.source()]++;
            }
        }
        // Rank 0 lets the others go on only when the flood is over, so that no later message joins it.
        if (me == 0) {
            for (int r = 1; r < n; r++) {
                world.send(new byte[0], r, 999);
            }
        } else {
            world.recv(new byte[0], 0, 999);
        }
        // Ring of synchronous sends, then a probe and a truncation from the left neighbour.
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;
        Request ring = world.issend(pattern(me, right, 1000, 3 * THRESHOLD), 3 * THRESHOLD, Datatype.BYTE, right, 7);
        Status probed = world.probe(left, 7);
        check(probed.source() == left && probed.byteCount() == 3 * THRESHOLD, "probe saw " + probed);
        MemorySegment small = MemorySegment.ofArray(new byte[THRESHOLD]);
        try {
            world.recv(small, THRESHOLD, Datatype.BYTE, left, 7);
            throw new AssertionError("a message of " + 3 * THRESHOLD + " bytes fitted a buffer of " + THRESHOLD);
        } catch (TruncationException e) {
            check(e.status().byteCount() == THRESHOLD, "truncated receive delivered " + e.status().byteCount());
            checkPattern(small, left, me, 1000, THRESHOLD);
        }
        ring.await();
        System.out.println("point-to-point OK on rank " + me + " of " + n);
    }

    /**
     * The launcher's restarts, without a transport: rank {@code victim} kills itself with SIGKILL
     * until it is incarnation {@code survivingIncarnation}, which writes {@code marker}; the other
     * ranks stay alive until the marker is there, so a launcher that stopped them would show.
     */
    static void dieUntil(int victim, int survivingIncarnation, java.nio.file.Path marker) throws IOException, InterruptedException {
        int rank = Integer.parseInt(System.getenv("LOCKSTEP_RANK"));
        int incarnation = Integer.parseInt(System.getenv("LOCKSTEP_INCARNATION"));
        System.out.println("rank " + rank + " incarnation " + incarnation + " pid " + ProcessHandle.current().pid());
        System.out.flush();
        if (rank == victim) {
            if (incarnation < survivingIncarnation) {
                new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor(10, TimeUnit.SECONDS);
                Thread.sleep(60_000); // never reached: SIGKILL ends the process
            }
            java.nio.file.Files.writeString(marker, Integer.toString(incarnation));
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!java.nio.file.Files.exists(marker)) {
            check(System.nanoTime() < deadline, "rank " + rank + ": rank " + victim + " never came back");
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        System.out.println("rank " + rank + " saw rank " + victim + " back");
    }

    /**
     * A ring of blocking sends and receives that checkpoints every {@code every} steps; rank 1's first
     * incarnation kills itself with SIGKILL after step {@code dieAfter} (past a checkpoint, so its
     * restart replays the messages it had consumed since). Each rank checks at the end that it
     * received every step's message once: 0 + 1 + ... + (steps - 1).
     */
    static void checkpointRing(Communicator world, int steps, int every, int dieAfter) throws IOException, InterruptedException {
        int me = world.rank();
        int n = world.size();
        MemorySegment state = MemorySegment.ofArray(new long[2]); // next step, sum received
        world.checkpoints().register("ring-state", state);
        world.checkpoints().restore();
        int incarnation = world.checkpoints().restart().map(r -> (int) r.incarnation()).orElse(1);
        long[] in = new long[1];
        for (long i = state.get(ValueLayout.JAVA_LONG, 0); i < steps; i++) {
            world.send(new long[] {i}, (me + 1) % n, 1);
            world.recv(in, (me + n - 1) % n, 1);
            state.set(ValueLayout.JAVA_LONG, 0, i + 1);
            state.set(ValueLayout.JAVA_LONG, 8, state.get(ValueLayout.JAVA_LONG, 8) + in[0]);
            if ((i + 1) % every == 0) {
                world.checkpoints().checkpoint();
            }
            if (me == 1 && incarnation == 1 && i == dieAfter) {
                new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor(10, TimeUnit.SECONDS);
                Thread.sleep(60_000); // never reached: SIGKILL ends the process
            }
        }
        long sum = state.get(ValueLayout.JAVA_LONG, 8);
        check(sum == (long) steps * (steps - 1) / 2, "rank " + me + " incarnation " + incarnation + ": sum received " + sum);
        System.out.println("checkpoint-ring OK on rank " + me + " incarnation " + incarnation);
    }

    /** Rank 1 kills itself with SIGKILL mid-traffic; the others must get a process-failed error, not hang. */
    static void killRankOne(Communicator world) throws IOException, InterruptedException {
        int me = world.rank();
        if (me == 1) {
            for (int i = 0; i < 50; i++) {
                world.send(new int[] {i}, 0, 0);
            }
            System.out.println("rank 1 dies at " + System.nanoTime());
            System.out.flush();
            new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(60_000); // never reached: SIGKILL ends the process
            return;
        }
        int[] v = new int[1];
        try {
            while (true) {
                world.recv(v, 1, 0);
            }
        } catch (ProcessFailedException e) {
            check(e.errorClass() == ErrorClass.PROC_FAILED && e.failedRank() == 1, "wrong failure: " + e);
            System.out.println("rank " + me + " saw rank 1 fail at " + System.nanoTime() + " after message " + v[0]);
        }
    }

    /**
     * Collectives across processes against values every rank can compute for itself, on the world
     * and on a split communicator, with wildcard point-to-point traffic on a duplicate in between.
     */
    static void collectives(Communicator world) {
        checkCollectives(world, "world");
        Communicator traffic = world.dup();
        Communicator half = world.split(world.rank() % 2, world.rank());
        // Wildcard messages on the duplicate while the halves run their collectives.
        traffic.isend(new long[] {world.rank()}, (world.rank() + 1) % world.size(), 3);
        checkCollectives(half, "half");
        long[] got = new long[1];
        Status s = traffic.recv(got, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
        check(got[0] == (world.rank() + world.size() - 1) % world.size() && s.source() == got[0], "traffic got " + got[0]);
        System.out.println("collectives OK on rank " + world.rank() + " of " + world.size());
    }

    private static void checkCollectives(Communicator c, String name) {
        int n = c.size();
        int me = c.rank();
        c.barrier();
        for (int root = 0; root < n; root++) {
            long[] value = {me == root ? 1000L + root : -1};
            c.bcast(MemorySegment.ofArray(value), 1, Datatype.LONG, root);
            check(value[0] == 1000L + root, name + ": bcast from " + root + " gave " + value[0]);
            long[] gathered = new long[n];
            c.gather(MemorySegment.ofArray(new long[] {me * 10L}), 1, Datatype.LONG, MemorySegment.ofArray(gathered), root);
            if (me == root) {
                for (int r = 0; r < n; r++) {
                    check(gathered[r] == r * 10L, name + ": gather at " + root + " slot " + r + " = " + gathered[r]);
                }
            }
            long[] sum = new long[1];
            c.reduce(MemorySegment.ofArray(new long[] {me + 1}), MemorySegment.ofArray(sum), 1, Datatype.LONG, Op.SUM, root);
            check(me != root || sum[0] == (long) n * (n + 1) / 2, name + ": reduce sum at " + root + " = " + sum[0]);
        }
        // Non-commutative but associative: decimal digits concatenated in rank order, whatever the algorithm.
        Op concatenate = Op.create((in, inout, count, type) -> {
            for (long i = 0; i < count; i++) {
                long a = in.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
                long b = inout.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
                long shift = 1;
                for (long rest = b; rest > 0; rest /= 10) {
                    shift *= 10;
                }
                inout.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, a * shift + b);
            }
        }, false);
        long[] digits = new long[1];
        c.allreduce(MemorySegment.ofArray(new long[] {me + 1}), MemorySegment.ofArray(digits), 1, Datatype.LONG, concatenate);
        long expected = 0;
        for (int r = 0; r < n; r++) {
            expected = expected * 10 + r + 1;
        }
        check(digits[0] == expected, name + ": non-commutative allreduce gave " + digits[0] + ", expected " + expected);
        double[] mine = {Math.PI * (me + 1) / 7.0};
        double[] total = new double[1];
        c.allreduce(MemorySegment.ofArray(mine), MemorySegment.ofArray(total), 1, Datatype.DOUBLE, Op.SUM);
        double[] everyones = new double[n];
        c.allgather(MemorySegment.ofArray(total), 1, Datatype.DOUBLE, MemorySegment.ofArray(everyones));
        for (double t : everyones) {
            check(Double.doubleToRawLongBits(t) == Double.doubleToRawLongBits(total[0]), name + ": allreduce differs between ranks");
        }
        long[] send = new long[n];
        for (int r = 0; r < n; r++) {
            send[r] = me * 100L + r;
        }
        long[] recv = new long[n];
        c.alltoall(MemorySegment.ofArray(send), 1, Datatype.LONG, MemorySegment.ofArray(recv));
        for (int r = 0; r < n; r++) {
            check(recv[r] == r * 100L + me, name + ": alltoall block " + r + " = " + recv[r]);
        }
        long[] prefix = new long[1];
        c.scan(MemorySegment.ofArray(new long[] {me + 1}), MemorySegment.ofArray(prefix), 1, Datatype.LONG, Op.SUM);
        check(prefix[0] == (long) (me + 1) * (me + 2) / 2, name + ": scan gave " + prefix[0]);
        int large = 1 << 17;
        double[] ones = new double[large];
        Arrays.fill(ones, 1.0);
        double[] counted = new double[large];
        c.allreduce(MemorySegment.ofArray(ones), MemorySegment.ofArray(counted), large, Datatype.DOUBLE, Op.SUM);
        check(counted[0] == n && counted[large - 1] == n, name + ": long allreduce gave " + counted[0]);
        checkDirectCollectives(c, name);
        c.barrier();
    }

    /** The collectives that read the other processes' device buffers (memory allocated from the communicator). */
    private static void checkDirectCollectives(Communicator c, String name) {
        int n = c.size();
        int me = c.rank();
        int bytes = 96 << 10; // above the data area's limits and the shared bcast's threshold
        MemorySegment a = c.allocate(bytes);
        MemorySegment b = c.allocate(bytes);
        for (int root = 0; root < n; root++) {
            for (int i = 0; i < bytes / Long.BYTES; i++) {
                a.setAtIndex(ValueLayout.JAVA_LONG, i, me == root ? root * 1_000_003L + i : -1);
            }
            c.bcast(a, bytes, Datatype.BYTE, root);
            check(a.getAtIndex(ValueLayout.JAVA_LONG, 7) == root * 1_000_003L + 7
                    && a.getAtIndex(ValueLayout.JAVA_LONG, bytes / Long.BYTES - 1) == root * 1_000_003L + bytes / Long.BYTES - 1,
                    name + ": device bcast from " + root);
        }
        int count = bytes / Long.BYTES;
        for (int i = 0; i < count; i++) {
            a.setAtIndex(ValueLayout.JAVA_LONG, i, (me + 1L) * (i + 1L));
        }
        c.allreduce(a, b, count, Datatype.LONG, Op.SUM);
        long triangle = (long) n * (n + 1) / 2;
        check(b.getAtIndex(ValueLayout.JAVA_LONG, 0) == triangle && b.getAtIndex(ValueLayout.JAVA_LONG, count - 1) == triangle * count,
                name + ": device allreduce gave " + b.getAtIndex(ValueLayout.JAVA_LONG, 0));
        int block = bytes / n / Long.BYTES;
        for (int i = 0; i < block * n; i++) {
            a.setAtIndex(ValueLayout.JAVA_LONG, i, me * 1_000_000L + i);
        }
        c.alltoall(a, block, Datatype.LONG, b);
        for (int from = 0; from < n; from++) {
            long first = b.getAtIndex(ValueLayout.JAVA_LONG, (long) from * block);
            check(first == from * 1_000_000L + (long) me * block, name + ": device alltoall block from " + from + " = " + first);
        }
        c.free(a);
        c.free(b);
    }

    /** A ring exchange that carries the job's own id: a message from another job would show. */
    static void jobRing(Communicator world, long jobId) {
        int me = world.rank();
        int n = world.size();
        Set<Long> seen = new HashSet<>();
        for (int round = 0; round < 500; round++) {
            long[] out = {jobId, round};
            long[] in = new long[2];
            world.sendrecv(MemorySegment.ofArray(out), 2, Datatype.LONG, (me + 1) % n, round,
                    MemorySegment.ofArray(in), 2, Datatype.LONG, (me + n - 1) % n, round);
            check(in[0] == jobId, "job " + jobId + " received a message of job " + in[0]);
            check(in[1] == round && seen.add(in[1]), "round " + round + " got round " + in[1]);
        }
        System.out.println("job " + jobId + " rank " + me + " OK");
    }

    private static int sizeOf(int i) {
        return switch (i % 4) {
            case 0 -> 8;
            case 1 -> THRESHOLD;
            case 2 -> THRESHOLD + 1;
            default -> 40_000; // fragments of 16 KiB
        };
    }

    private static MemorySegment pattern(int source, int dest, long index, int length) {
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        for (int i = 0; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, patternByte(source, dest, index, i));
        }
        return s;
    }

    private static byte patternByte(int source, int dest, long index, long position) {
        long h = (source + 1) * 0x9E3779B97F4A7C15L ^ (dest + 7) * 0xC2B2AE3D27D4EB4FL ^ index * 0x165667B19E3779F9L ^ position;
        return (byte) (h ^ (h >>> 29) ^ (h >>> 47));
    }

    private static void checkPattern(MemorySegment s, int source, int dest, long index, long length) {
        for (long i = 0; i < length; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != patternByte(source, dest, index, i)) {
                throw new AssertionError("byte " + i + " of message " + index + " from rank " + source + " is wrong");
            }
        }
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
