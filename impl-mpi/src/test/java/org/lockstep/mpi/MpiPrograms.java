package org.lockstep.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

/**
 * Programs the tests start under {@code mpirun}, one process per rank, on the {@code mpi}
 * provider. Each checks what MPI promises, prints {@code OK <program> rank <r>} at its end, and
 * fails the rank (a non-zero exit) if a promise is broken. The first argument names the program.
 */
public final class MpiPrograms {
    private MpiPrograms() {
    }

    public static void main(String[] args) throws Exception {
        String program = args[0];
        JobOptions options = JobOptions.ofRanks(1);
        switch (program) {
            case "point-to-point" -> Lockstep.run(options, MpiPrograms::pointToPoint);
            case "collectives" -> Lockstep.run(options, MpiCollectivePrograms::collectives);
            case "non-blocking-collectives" -> Lockstep.run(options, MpiNonBlockingCollectivePrograms::nonBlockingCollectives);
            case "communicators" -> Lockstep.run(options, MpiPrograms::communicators);
            case "intercommunicators" -> Lockstep.run(options, MpiPrograms::intercommunicators);
            case "errors" -> Lockstep.run(options, MpiPrograms::errors);
            case "threads" -> Lockstep.run(options, MpiPrograms::threads);
            case "cross-progress" -> Lockstep.run(options, MpiPrograms::crossProgress);
            case "topologies" -> Lockstep.run(options, MpiTopologyPrograms::topologies);
            case "windows" -> Lockstep.run(options, MpiWindowPrograms::windows);
            case "passive-target-while-blocked" -> Lockstep.run(options, MpiWindowPrograms::passiveTargetWhileBlocked);
            case "truncation" -> Lockstep.run(options, MpiPrograms::truncationStaysInTheBuffer);
            case "truncation-as-mpi" -> Lockstep.run(options, MpiPrograms::truncationAsMpi);
            case "wildcards-across-hosts" -> Lockstep.run(options, HybridMatchingPrograms::wildcardsAcrossHosts);
            default -> throw new IllegalArgumentException("no program " + program);
        }
        System.out.println("OK " + program);
    }

    static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    /** Sends, receives, wildcards, status, probe, cancel, PROC_NULL, truncation; heap and native buffers. */
    static void pointToPoint(Communicator world) {
        int me = world.rank();
        int n = world.size();
        int next = (me + 1) % n;
        int prev = (me + n - 1) % n;
        // A ring of every size class, heap and native, blocking and not.
        for (int size : new int[] {0, 1, 8, 4096, 65536, 1 << 20}) {
            byte[] out = pattern(me, size);
            byte[] in = new byte[size];
            Status s = world.sendrecv(MemorySegment.ofArray(out), size, Datatype.BYTE, next, size % 1000,
                    MemorySegment.ofArray(in), size, Datatype.BYTE, prev, size % 1000);
            check(Arrays.equals(in, pattern(prev, size)), "ring payload of " + size + " bytes");
            check(s.source() == prev && s.tag() == size % 1000 && s.byteCount() == size, "ring status " + s);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment nativeOut = arena.allocate(Math.max(size, 1)).asSlice(0, size);
                MemorySegment nativeIn = arena.allocate(Math.max(size, 1)).asSlice(0, size);
                nativeOut.copyFrom(MemorySegment.ofArray(out));
                Request r = world.irecv(nativeIn, size, Datatype.BYTE, prev, 7);
                world.send(nativeOut, size, Datatype.BYTE, next, 7);
                r.await();
                check(Arrays.equals(nativeIn.toArray(ValueLayout.JAVA_BYTE), pattern(prev, size)), "native ring of " + size);
            }
        }
        // Non-blocking sends from heap arrays are staged: changing the array after isend must not matter.
        long[] values = {1, 2, 3, 4};
        Request send = world.isend(values, next, 11);
        Arrays.fill(values, -1);
        long[] got = new long[4];
        world.recv(got, prev, 11);
        send.await();
        check(Arrays.equals(got, new long[] {1, 2, 3, 4}), "staged isend " + Arrays.toString(got));
        // Wildcards: rank 0 probes for one message from every other rank, in any order, tags by sender.
        if (me == 0) {
            boolean[] seen = new boolean[n];
            for (int i = 1; i < n; i++) {
                Status p = world.probe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                check(p.byteCount() == Integer.BYTES * 3L && p.tag() == 100 + p.source(), "probe status " + p);
                int[] msg = new int[3];
                // Another sender's message may arrive between probe and receive: receive the probed one.
                Status s = world.recv(msg, p.source(), p.tag());
                check(s.source() == p.source() && msg[0] == s.source(), "receive after probe " + s);
                seen[s.source()] = true;
            }
            for (int i = 1; i < n; i++) {
                check(seen[i], "no message from rank " + i);
            }
        } else {
            world.ssend(MemorySegment.ofArray(new int[] {me, me, me}), 3, Datatype.INT, 0, 100 + me);
        }
        // iprobe finds nothing that was not sent.
        check(world.iprobe(Communicator.ANY_SOURCE, 999).isEmpty(), "iprobe found a message never sent");
        // An unmatched receive can be cancelled, and says so.
        Request never = world.irecv(new byte[4], Communicator.ANY_SOURCE, 12345);
        never.cancel();
        check(never.await().cancelled(), "cancelled receive status");
        // PROC_NULL completes at once.
        Status none = world.recv(new byte[1], Communicator.PROC_NULL, 5);
        check(none.source() == Communicator.PROC_NULL && none.byteCount() == 0, "PROC_NULL status " + none);
        world.send(new byte[1], Communicator.PROC_NULL, 5);
        // Truncation: the buffer keeps the first part, the error says so and the message is consumed.
        if (me == 0) {
            world.send(pattern(0, 100), 1 % n, 21);
            world.send(new byte[] {9}, 1 % n, 22);
        }
        if (me == 1 % n) {
            byte[] small = new byte[10];
            try {
                world.recv(small, 0, 21);
                throw new AssertionError("no truncation error");
            } catch (TruncationException e) {
                check(e.errorClass() == ErrorClass.TRUNCATE && e.status().source() == 0 && e.status().tag() == 21,
                        "truncation status " + e.status());
                check(e.status().byteCount() == 10 && e.messageBytes() == 100, "truncation lengths: delivered "
                        + e.status().byteCount() + " of " + e.messageBytes());
                check(Arrays.equals(small, Arrays.copyOf(pattern(0, 100), 10)), "truncated buffer keeps the first part");
            }
            byte[] one = new byte[1];
            world.recv(one, 0, 22);
            check(one[0] == 9, "the message after a truncated one");
            Request r = world.irecv(new byte[0], 0, 23);
            try {
                r.await();
                throw new AssertionError("no truncation from a non-blocking receive");
            } catch (TruncationException e) {
                check(e.status().tag() == 23, "irecv truncation status");
            }
        }
        if (me == 0) {
            world.send(new byte[] {1, 2}, 1 % n, 23);
        }
        world.barrier();
        System.out.println("rank " + me + " point-to-point done");
    }

    /** dup, split and createGroup: isolated contexts, UNDEFINED, key order; the host split. */
    static void communicators(Communicator world) {
        int me = world.rank();
        int n = world.size();
        Communicator copy = world.dup();
        check(copy.rank() == me && copy.size() == n, "dup keeps the group");
        if (n > 1) {
            // A message on the copy never matches a wildcard receive on the world.
            if (me == 0) {
                copy.send(new int[] {1}, 1, 5);
                world.send(new int[] {2}, 1, 5);
            } else if (me == 1) {
                int[] v = new int[1];
                Status s = world.recv(v, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                check(v[0] == 2 && s.source() == 0, "world receive took the dup's message");
                copy.recv(v, 0, 5);
                check(v[0] == 1, "dup's message");
            }
        }
        // Split into even and odd ranks, ordered by descending key; the last rank joins none.
        int color = me == n - 1 && n > 2 ? Communicator.UNDEFINED : me % 2;
        Communicator half = world.split(color, -me);
        if (color == Communicator.UNDEFINED) {
            check(half == null, "UNDEFINED gives no communicator");
        } else {
            int members = 0;
            int below = 0;
            for (int r = 0; r < n; r++) {
                boolean joins = !(r == n - 1 && n > 2) && r % 2 == color;
                if (joins) {
                    members++;
                    if (r > me) {
                        below++;
                    }
                }
            }
            check(half.size() == members && half.rank() == below, "split rank " + half.rank() + " of " + half.size());
            int[] sum = new int[1];
            half.allreduce(MemorySegment.ofArray(new int[] {me}), MemorySegment.ofArray(sum), 1, Datatype.INT, org.lockstep.api.Op.SUM);
            int expected = 0;
            for (int r = color; r < n; r += 2) {
                expected += (r == n - 1 && n > 2) ? 0 : r;
            }
            check(sum[0] == expected, "allreduce on the split: " + sum[0] + " != " + expected);
            half.close();
        }
        createGroupAmongSome(world);
        copy.close();
        try {
            copy.barrier();
            throw new AssertionError("a closed communicator still worked");
        } catch (LockstepException e) {
            check(e.errorClass() == ErrorClass.COMM, "closed communicator error class " + e.errorClass());
        }
        world.barrier();
    }

    /**
     * createGroup over the world's ranks in reverse order, rank 1 left out (when there are more than
     * two): only the members call; new ranks follow the group's order, and sources are named by them.
     */
    static void createGroupAmongSome(Communicator world) {
        int me = world.rank();
        int n = world.size();
        int[] members = java.util.stream.IntStream.iterate(n - 1, r -> r >= 0, r -> r - 1).filter(r -> n <= 2 || r != 1).toArray();
        int position = java.util.stream.IntStream.range(0, members.length).filter(i -> members[i] == me).findFirst().orElse(-1);
        if (position < 0) {
            return;
        }
        Communicator some = world.createGroup(world.group().incl(members), 7);
        check(some.size() == members.length && some.rank() == position,
                "createGroup rank " + some.rank() + " of " + some.size() + ", expected " + position + " of " + members.length);
        int[] worldRanks = new int[members.length];
        some.allgather(MemorySegment.ofArray(new int[] {me}), 1, Datatype.INT, MemorySegment.ofArray(worldRanks));
        check(java.util.Arrays.equals(worldRanks, members), "createGroup order " + java.util.Arrays.toString(worldRanks));
        check(java.util.Arrays.equals(some.group().worldRanks(), members), "createGroup's group " + java.util.Arrays.toString(some.group().worldRanks()));
        if (members.length > 1) {
            int[] v = new int[1];
            if (position == 0) {
                some.send(new int[] {me}, 1, 3);
            } else if (position == 1) {
                Status s = some.recv(v, Communicator.ANY_SOURCE, 3);
                check(s.source() == 0 && v[0] == members[0], "createGroup source " + s.source() + " value " + v[0]);
            }
        }
        some.close();
    }

    /**
     * Evens and odds as the two groups of an intercommunicator (leaders: world ranks 0 and 1):
     * sizes, a message between the leaders, an allreduce that yields the other group's sum, and
     * the merge that puts the evens first.
     */
    static void intercommunicators(Communicator world) {
        int me = world.rank();
        int n = world.size();
        int color = me % 2;
        int evens = (n + 1) / 2;
        Communicator local = world.split(color, me);
        Intercommunicator inter = local.createIntercommunicator(0, world, 1 - color, 11);
        check(inter.size() == local.size() && inter.remoteSize() == n - local.size(),
                "intercommunicator sizes " + inter.size() + "/" + inter.remoteSize());
        int[] v = new int[1];
        if (inter.rank() == 0) {
            Status s = inter.sendrecv(MemorySegment.ofArray(new int[] {me}), 1, Datatype.INT, 0, 4,
                    MemorySegment.ofArray(v), 1, Datatype.INT, 0, 4);
            check(v[0] == 1 - color && s.source() == 0, "leader's message " + v[0] + " from " + s.source());
        }
        int[] otherSum = new int[1];
        inter.allreduce(MemorySegment.ofArray(new int[] {me}), MemorySegment.ofArray(otherSum), 1, Datatype.INT, org.lockstep.api.Op.SUM);
        int expected = java.util.stream.IntStream.range(0, n).filter(r -> r % 2 != color).sum();
        check(otherSum[0] == expected, "intercommunicator allreduce " + otherSum[0] + " != " + expected);
        Communicator merged = inter.merge(color == 1);
        int mergedRank = color == 0 ? me / 2 : evens + me / 2;
        check(merged.size() == n && merged.rank() == mergedRank, "merged rank " + merged.rank() + " of " + merged.size());
        merged.barrier();
        merged.close();
        inter.close();
        local.close();
    }

    /**
     * Two threads of each rank talk at once, each on its own duplicate of the world: the library
     * granted MPI_THREAD_MULTIPLE (asked for by default), so neither waits for the other.
     */
    static void threads(Communicator world) throws InterruptedException {
        check(org.lockstep.mpi.comm.MpiSession.current().orElseThrow().threadMultiple(), "the library did not grant MPI_THREAD_MULTIPLE");
        Communicator[] channels = {world.dup(), world.dup()};
        int me = world.rank();
        int n = world.size();
        Throwable[] failures = new Throwable[2];
        Thread[] threads = new Thread[2];
        for (int t = 0; t < 2; t++) {
            Communicator c = channels[t];
            int id = t;
            threads[t] = Thread.ofPlatform().start(() -> {
                try {
                    for (int round = 0; round < 500; round++) {
                        int[] got = new int[2];
                        c.sendrecv(MemorySegment.ofArray(new int[] {me, id}), 2, Datatype.INT, (me + 1) % n, round,
                                MemorySegment.ofArray(got), 2, Datatype.INT, (me + n - 1) % n, round);
                        check(got[0] == (me + n - 1) % n && got[1] == id, "thread " + id + " got " + Arrays.toString(got));
                    }
                } catch (Throwable e) {
                    failures[id] = e;
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        for (Throwable f : failures) {
            if (f != null) {
                throw new AssertionError("a thread failed", f);
            }
        }
        channels[0].close();
        channels[1].close();
        world.barrier();
    }

    /**
     * For 4 ranks as 2 hosts of 2 (hybrid): rank 0 starts a large send to rank 2 (another host: MPI,
     * whose rendezvous needs the sender's progress) and then blocks on a receive from rank 1 (its
     * own host: the device), which rank 1 sends only once rank 2 has the large message. Rank 0 must
     * keep MPI moving while it waits on the device, or the three wait for each other for ever.
     */
    static void crossProgress(Communicator world) {
        check(world.size() == 4, "cross-progress needs 4 ranks");
        int big = 4 << 20;
        switch (world.rank()) {
            case 0 -> {
                Request large = world.isend(MemorySegment.ofArray(pattern(0, big)), big, Datatype.BYTE, 2, 1);
                byte[] token = new byte[1];
                world.recv(token, 1, 3);
                check(token[0] == 42, "token");
                large.await();
            }
            case 1 -> {
                byte[] token = new byte[1];
                world.recv(token, 2, 2);
                world.send(new byte[] {42}, 0, 3);
            }
            case 2 -> {
                byte[] in = new byte[big];
                world.recv(in, 0, 1);
                check(Arrays.equals(in, pattern(0, big)), "large message");
                world.send(new byte[] {1}, 1, 2);
            }
            default -> { }
        }
        world.barrier();
    }

    /**
     * Truncated receives of messages above the eager sizes, from the rank itself and from a
     * neighbour, posted before the message comes and after, into native buffers with a guard after
     * them: the library must write nothing past the buffer. Open MPI 4.1's RDMA protocols (its self
     * and shared-memory transports' get and put) write the whole message there unless the provider
     * turns them off.
     */
    static void truncationStaysInTheBuffer(Communicator world) {
        int me = world.rank();
        int n = world.size();
        int guard = 1 << 18;
        for (int size : new int[] {4095, 20487, 200000}) {
            int capacity = size / 2;
            for (boolean fromItself : new boolean[] {true, false}) {
                int from = fromItself ? me : (me + n - 1) % n;
                int to = fromItself ? me : (me + 1) % n;
                for (boolean posted : new boolean[] {true, false}) {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment area = arena.allocate(capacity + guard);
                        area.fill((byte) 0x5A);
                        Request receive = posted ? world.irecv(area.asSlice(0, capacity), capacity, Datatype.BYTE, from, 40) : null;
                        world.barrier();
                        Request send = world.isend(MemorySegment.ofArray(pattern(me, size)), size, Datatype.BYTE, to, 40);
                        if (!posted) {
                            world.barrier(); // the message has had time to arrive unexpected
                            receive = world.irecv(area.asSlice(0, capacity), capacity, Datatype.BYTE, from, 40);
                        }
                        String what = size + " bytes into " + capacity + (fromItself ? " from itself" : " from rank " + from)
                                + (posted ? ", posted" : ", unexpected");
                        try {
                            receive.await();
                            throw new AssertionError("no truncation of " + what);
                        } catch (TruncationException expected) {
                            check(expected.status().byteCount() <= capacity, "delivered more than the buffer: " + what);
                        }
                        send.await();
                        long written = area.byteSize() - capacity;
                        for (long i = 0; i < written; i++) {
                            if (area.get(ValueLayout.JAVA_BYTE, capacity + i) != 0x5A) {
                                throw new AssertionError("the library wrote past the buffer at +" + i + ": " + what);
                            }
                        }
                        if (org.lockstep.mpi.binding.Mpi.ABI.truncationKeepsPrefix()) {
                            check(Arrays.equals(area.asSlice(0, capacity).toArray(ValueLayout.JAVA_BYTE),
                                    Arrays.copyOf(pattern(from, size), capacity)), "the message's first bytes: " + what);
                        }
                    }
                    world.barrier();
                }
            }
        }
    }

    /**
     * With {@code lockstep.mpi.truncation=mpi} on a library that keeps nothing of a truncated
     * receive: receives are posted, not probed first, so a truncated one (blocking or not) delivers
     * nothing and reports the length unknown; the message is still consumed.
     */
    static void truncationAsMpi(Communicator world) {
        int me = world.rank();
        int peer = 1 - me;
        if (me == 0) {
            world.send(pattern(0, 100), peer, 31);
            world.send(pattern(0, 100), peer, 32);
            world.send(new byte[] {9}, peer, 33);
        } else if (me == 1) {
            byte[] small = new byte[10];
            for (int tag : new int[] {31, 32}) {
                try {
                    if (tag == 31) {
                        world.recv(small, 0, tag);
                    } else {
                        world.irecv(small, 0, tag).await();
                    }
                    throw new AssertionError("no truncation error, tag " + tag);
                } catch (TruncationException e) {
                    check(e.status().byteCount() == 0 && e.messageBytes() == TruncationException.UNKNOWN_LENGTH,
                            "posted receive, tag " + tag + ": delivered " + e.status().byteCount() + ", length " + e.messageBytes());
                    check(e.getMessage().contains("unknown length"), "the error says the length is unknown: " + e.getMessage());
                }
            }
            byte[] one = new byte[1];
            world.recv(one, 0, 33);
            check(one[0] == 9, "the message after the truncated ones");
        }
        world.barrier();
    }

    /** Bad input is a typed error that leaves the communicator usable. */
    static void errors(Communicator world) {
        int n = world.size();
        expect(ErrorClass.RANK, () -> world.send(new byte[1], n, 0));
        expect(ErrorClass.TAG, () -> world.send(new byte[1], 0, -5));
        expect(ErrorClass.COUNT, () -> world.send(MemorySegment.ofArray(new byte[4]), 8, Datatype.BYTE, 0, 0));
        expect(ErrorClass.ROOT, () -> world.bcast(MemorySegment.ofArray(new byte[4]), 4, Datatype.BYTE, n));
        expect(ErrorClass.ARG, () -> world.split(-7, 0));
        // A tag within the API's range but above the library's MPI_TAG_UB (MPICH's is 2^28 - 1) names the bound.
        int bound = org.lockstep.mpi.comm.MpiSession.current().orElseThrow().tagUpperBound();
        if (bound < Communicator.TAG_UB) {
            LockstepException aboveBound = expect(ErrorClass.TAG, () -> world.send(new byte[1], 0, bound + 1));
            check(aboveBound.getMessage().contains("MPI_TAG_UB, " + bound), "the tag error names the bound: " + aboveBound.getMessage());
            expect(ErrorClass.TAG, () -> world.irecv(new byte[1], 0, bound + 1));
        }
        // A native error code from the library itself, with the library's text.
        LockstepException nativeError = org.lockstep.mpi.binding.MpiErrors.exception(truncateCode(), "MPI_Recv");
        check(nativeError.errorClass() == ErrorClass.TRUNCATE && nativeError.getMessage().contains("MPI_Recv"),
                "native error mapping: " + nativeError.getMessage());
        // Still usable.
        int[] sum = new int[1];
        world.allreduce(MemorySegment.ofArray(new int[] {1}), MemorySegment.ofArray(sum), 1, Datatype.INT, org.lockstep.api.Op.SUM);
        check(sum[0] == n, "allreduce after errors");
    }

    /** The library's code for MPI_ERR_TRUNCATE: its class number, which MPI makes a valid code too. */
    private static int truncateCode() {
        return org.lockstep.mpi.binding.Mpi.ABI.truncateClass();
    }

    private static LockstepException expect(ErrorClass errorClass, Runnable call) {
        try {
            call.run();
        } catch (LockstepException e) {
            check(e.errorClass() == errorClass, "expected " + errorClass + ", got " + e.errorClass() + ": " + e.getMessage());
            return e;
        }
        throw new AssertionError("expected " + errorClass + ", got no error");
    }

    static byte[] pattern(int rank, int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (rank * 31 + i * 7);
        }
        return b;
    }
}
