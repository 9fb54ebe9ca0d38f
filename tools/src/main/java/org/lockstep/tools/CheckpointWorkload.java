package org.lockstep.tools;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * The workload of the checkpoint/restart trials: every iteration a ring shift (sizes across the
 * indirection threshold), an all-to-all exchange, and wildcard ({@code ANY_SOURCE}) receives of a
 * message from every other rank; each rank checkpoints itself every few iterations, at its own
 * pace (rank r every {@code checkpointEvery + r} iterations: no two ranks checkpoint together).
 *
 * <p>Its results are deterministic, whatever the wildcard matching order and whatever a restart
 * replays: a {@linkplain Result#digest digest} of the ring and all-to-all values in program order
 * (the values sent depend on the sender's digest, so one wrong message spoils every later one), and
 * an order-free sum of the wildcard values. The order of the wildcard matches is checked across
 * ranks instead: each ring message carries a hash of its sender's matching order so far; the sender
 * chains what it sent and the receiver what it received, and the two chains agree only if a
 * restarted rank re-matched its wildcard receives as it originally had (its re-sent messages are
 * dropped, so a different order would leave the chains apart).
 *
 * <p>Per-message accounting: every message names its kind, sender and iteration; the receiver
 * expects, per kind and sender, the next iteration. An older one is counted {@code duplicated} (and
 * skipped), a newer one counts the skipped iterations as {@code lost}; a payload that differs from
 * its pattern counts as {@code corrupt}.
 *
 * <p>As a program of its own ({@link #main}), for {@code lockstep run}: arguments
 * {@code [iterations [checkpointEvery]]}; it prints one {@link Result#line() result line}.
 */
public final class CheckpointWorkload {
    /** Kinds of message, also their tags. */
    static final int RING = 1;
    static final int EXCHANGE = 2;
    static final int WILDCARD = 3;
    private static final int KINDS = 3;

    /** A ring message this large goes through the transport's indirection (above the default threshold). */
    static final int LARGE_RING_BYTES = 6000;
    static final int SMALL_RING_BYTES = 64;
    static final int EXCHANGE_BYTES = 256;
    static final int WILDCARD_BYTES = 48;

    public static final int DEFAULT_ITERATIONS = 200;
    public static final int DEFAULT_CHECKPOINT_EVERY = 5;

    private final int iterations;
    private final int checkpointEvery;

    /**
     * @param iterations      iterations of the three patterns
     * @param checkpointEvery rank r checkpoints after every {@code checkpointEvery + r} iterations
     */
    public CheckpointWorkload(int iterations, int checkpointEvery) {
        if (iterations < 1 || checkpointEvery < 1) {
            throw new LockstepException(ErrorClass.ARG, "iterations and checkpoint interval must be positive, got "
                    + iterations + " and " + checkpointEvery);
        }
        this.iterations = iterations;
        this.checkpointEvery = checkpointEvery;
    }

    public static void main(String[] args) {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_ITERATIONS;
        int every = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_CHECKPOINT_EVERY;
        CheckpointWorkload workload = new CheckpointWorkload(iterations, every);
        int ranks = org.lockstep.api.LaunchEnvironment.current().map(org.lockstep.api.LaunchEnvironment::size).orElse(4);
        Lockstep.run(JobOptions.ofRanks(ranks), world -> System.out.println(workload.run(world).line()));
    }

    /**
     * The checkpointed state of one rank: one segment of longs.
     *
     * <pre>
     *   0                                                              63
     *  +----------------------------------------------------------------+
     *  |  next iteration                                                |  0
     *  |  digest (ring and all-to-all values, in program order)         |  8
     *  |  wildcard sum (order-free)                                     | 16
     *  |  matching-order hash (wildcard sources, in matching order)     | 24
     *  |  chain of order hashes sent to the right neighbour             | 32
     *  |  chain of order hashes received from the left neighbour       | 40
     *  |  lost | duplicated | corrupt | checkpoints taken               | 48..72
     *  |  expected next iteration, [kind][sender], kinds x world size   | 80..
     *  +----------------------------------------------------------------+
     * </pre>
     */
    static final class State {
        static final long NEXT_ITERATION = 0;
        static final long DIGEST = 8;
        static final long WILDCARD_SUM = 16;
        static final long ORDER_HASH = 24;
        static final long SENT_CHAIN = 32;
        static final long RECEIVED_CHAIN = 40;
        static final long LOST = 48;
        static final long DUPLICATED = 56;
        static final long CORRUPT = 64;
        static final long CHECKPOINTS = 72;
        static final long EXPECTED = 80;

        static long bytes(int worldSize) {
            return EXPECTED + (long) KINDS * worldSize * Long.BYTES;
        }

        static long expectedOffset(int kind, int sender, int worldSize) {
            return EXPECTED + ((long) (kind - 1) * worldSize + sender) * Long.BYTES;
        }

        private State() {
        }
    }

    /**
     * One rank's results.
     *
     * @param incarnation the process incarnation that finished (1 unless restarted)
     * @param resumedFrom the checkpoint epoch the finishing incarnation resumed from (0: none)
     */
    public record Result(int rank, long digest, long wildcardSum, long sentChain, long receivedChain, long lost, long duplicated,
                         long corrupt, long checkpoints, long incarnation, long resumedFrom) {
        private static final Pattern LINE = Pattern.compile("ckpt-workload rank=(\\d+) digest=([0-9a-f]+) wildcard=([0-9a-f]+) "
                + "sent-chain=([0-9a-f]+) received-chain=([0-9a-f]+) lost=(\\d+) duplicated=(\\d+) corrupt=(\\d+) "
                + "checkpoints=(\\d+) incarnation=(\\d+) resumed-from=(\\d+)");

        /** The line a launched rank prints. */
        public String line() {
            return String.format(Locale.ROOT, "ckpt-workload rank=%d digest=%016x wildcard=%016x sent-chain=%016x received-chain=%016x "
                    + "lost=%d duplicated=%d corrupt=%d checkpoints=%d incarnation=%d resumed-from=%d", rank, digest, wildcardSum,
                    sentChain, receivedChain, lost, duplicated, corrupt, checkpoints, incarnation, resumedFrom);
        }

        /** The results in {@code output}, the last line of each rank (a restarted rank may have printed before it died). */
        public static List<Result> parseAll(String output, int ranks) {
            Result[] found = new Result[ranks];
            Matcher m = LINE.matcher(output);
            while (m.find()) {
                Result r = new Result(Integer.parseInt(m.group(1)), Long.parseUnsignedLong(m.group(2), 16),
                        Long.parseUnsignedLong(m.group(3), 16), Long.parseUnsignedLong(m.group(4), 16),
                        Long.parseUnsignedLong(m.group(5), 16), Long.parseLong(m.group(6)), Long.parseLong(m.group(7)),
                        Long.parseLong(m.group(8)), Long.parseLong(m.group(9)), Long.parseLong(m.group(10)), Long.parseLong(m.group(11)));
                if (r.rank() >= 0 && r.rank() < ranks) {
                    found[r.rank()] = r;
                }
            }
            List<Result> results = new ArrayList<>();
            for (Result r : found) {
                if (r != null) {
                    results.add(r);
                }
            }
            return results;
        }
    }

    /**
     * Compares a trial's results with a fault-free run's: empty when they agree (same digests and
     * wildcard sums on every rank, the order chains of neighbours equal, nothing lost, duplicated or
     * corrupt), else what differs.
     */
    public static Optional<String> compare(List<Result> reference, List<Result> trial, int ranks) {
        List<String> problems = new ArrayList<>();
        if (trial.size() != ranks) {
            problems.add("results of " + trial.size() + " of " + ranks + " ranks");
        }
        for (Result t : trial) {
            Result ref = reference.stream().filter(r -> r.rank() == t.rank()).findFirst().orElse(null);
            if (ref == null) {
                problems.add("no reference result for rank " + t.rank());
                continue;
            }
            if (t.digest() != ref.digest()) {
                problems.add("rank " + t.rank() + ": digest " + Long.toHexString(t.digest()) + " != fault-free " + Long.toHexString(ref.digest()));
            }
            if (t.wildcardSum() != ref.wildcardSum()) {
                problems.add("rank " + t.rank() + ": wildcard sum differs from the fault-free run");
            }
            if (t.lost() + t.duplicated() + t.corrupt() > 0) {
                problems.add("rank " + t.rank() + ": lost=" + t.lost() + " duplicated=" + t.duplicated() + " corrupt=" + t.corrupt());
            }
            trial.stream().filter(r -> r.rank() == (t.rank() + 1) % ranks).findFirst().ifPresent(right -> {
                if (right.receivedChain() != t.sentChain()) {
                    problems.add("rank " + t.rank() + " sent ring messages whose matching-order hashes rank " + right.rank()
                            + " did not receive (wildcard receives re-matched differently after a restart?)");
                }
            });
        }
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    /** Runs this rank's part to the end (resuming from its checkpoint on a restart) and returns its results. */
    public Result run(Communicator world) {
        int n = world.size();
        int me = world.rank();
        if (n < 2) {
            throw new LockstepException(ErrorClass.ARG, "the checkpoint workload needs at least 2 ranks, got " + n);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(State.bytes(n), Long.BYTES);
            Checkpoints checkpoints = world.checkpoints();
            checkpoints.register("ckpt-workload-state", state);
            long resumedFrom = checkpoints.restore();
            long incarnation = checkpoints.restart().map(Checkpoints.Restart::incarnation).orElse(1L);
            Buffers buffers = new Buffers(n);
            int interval = checkpointEvery + me;
            for (long i = get(state, State.NEXT_ITERATION); i < iterations; i++) {
                ring(world, state, buffers, i);
                exchange(world, state, buffers, i);
                wildcards(world, state, buffers, i);
                put(state, State.NEXT_ITERATION, i + 1);
                if ((i + 1) % interval == 0 && i + 1 < iterations) {
                    put(state, State.CHECKPOINTS, get(state, State.CHECKPOINTS) + 1);
                    checkpoints.checkpoint();
                }
            }
            return new Result(me, get(state, State.DIGEST), get(state, State.WILDCARD_SUM), get(state, State.SENT_CHAIN),
                    get(state, State.RECEIVED_CHAIN), get(state, State.LOST), get(state, State.DUPLICATED), get(state, State.CORRUPT),
                    get(state, State.CHECKPOINTS), incarnation, resumedFrom);
        }
    }

    /** Reused message buffers (a message's header is its first four longs). */
    private static final class Buffers {
        final MemorySegment out = MemorySegment.ofArray(new long[LARGE_RING_BYTES / Long.BYTES + 1]);
        final MemorySegment in = MemorySegment.ofArray(new long[LARGE_RING_BYTES / Long.BYTES + 1]);
        final MemorySegment[] exchangeOut;
        final MemorySegment[] exchangeIn;

        Buffers(int n) {
            exchangeOut = new MemorySegment[n];
            exchangeIn = new MemorySegment[n];
            for (int p = 0; p < n; p++) {
                exchangeOut[p] = MemorySegment.ofArray(new long[EXCHANGE_BYTES / Long.BYTES]);
                exchangeIn[p] = MemorySegment.ofArray(new long[EXCHANGE_BYTES / Long.BYTES]);
            }
        }
    }

    /**
     * A message: kind, sender, iteration, the value it carries, the sender's matching-order hash
     * (ring only), then a pattern of its identity up to its length.
     */
    static final class Message {
        static final long KIND = 0;
        static final long SENDER = 8;
        static final long ITERATION = 16;
        static final long VALUE = 24;
        static final long ORDER = 32;
        static final long HEADER = 40;

        private Message() {
        }
    }

    private static void ring(Communicator world, MemorySegment state, Buffers b, long i) {
        int n = world.size();
        int me = world.rank();
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;
        int bytes = i % 3 == 2 ? LARGE_RING_BYTES : SMALL_RING_BYTES;
        long order = get(state, State.ORDER_HASH);
        fill(b.out, RING, me, i, mix(get(state, State.DIGEST), i * n + me), order, bytes);
        put(state, State.SENT_CHAIN, mix(get(state, State.SENT_CHAIN), order));
        Request send = world.isend(b.out, bytes, Datatype.BYTE, right, RING);
        MemorySegment got = receive(world, state, b.in, RING, left);
        send.await();
        put(state, State.DIGEST, mix(get(state, State.DIGEST), got.get(ValueLayout.JAVA_LONG, Message.VALUE)));
        put(state, State.RECEIVED_CHAIN, mix(get(state, State.RECEIVED_CHAIN), got.get(ValueLayout.JAVA_LONG, Message.ORDER)));
    }

    private static void exchange(Communicator world, MemorySegment state, Buffers b, long i) {
        int n = world.size();
        int me = world.rank();
        long digest = get(state, State.DIGEST);
        List<Request> sends = new ArrayList<>();
        for (int step = 1; step < n; step++) {
            int peer = (me + step) % n;
            fill(b.exchangeOut[peer], EXCHANGE, me, i, mix(digest, 100 + peer), 0, EXCHANGE_BYTES);
            sends.add(world.isend(b.exchangeOut[peer], EXCHANGE_BYTES, Datatype.BYTE, peer, EXCHANGE));
        }
        // Received one sender at a time, lowest rank first: the digest sees them in a fixed order.
        for (int peer = 0; peer < n; peer++) {
            if (peer != me) {
                MemorySegment got = receive(world, state, b.exchangeIn[peer], EXCHANGE, peer);
                put(state, State.DIGEST, mix(get(state, State.DIGEST), got.get(ValueLayout.JAVA_LONG, Message.VALUE)));
            }
        }
        Request.waitAll(sends.toArray(Request[]::new));
    }

    private static void wildcards(Communicator world, MemorySegment state, Buffers b, long i) {
        int n = world.size();
        int me = world.rank();
        long digest = get(state, State.DIGEST);
        List<Request> sends = new ArrayList<>();
        for (int step = 1; step < n; step++) {
            int peer = (me + step) % n;
            MemorySegment out = b.exchangeOut[peer];
            fill(out, WILDCARD, me, i, mix(digest, 1000 + peer), 0, WILDCARD_BYTES);
            sends.add(world.isend(out, WILDCARD_BYTES, Datatype.BYTE, peer, WILDCARD));
        }
        for (int k = 1; k < n; k++) {
            MemorySegment got = receive(world, state, b.in, WILDCARD, Communicator.ANY_SOURCE);
            int source = (int) got.get(ValueLayout.JAVA_LONG, Message.SENDER);
            put(state, State.WILDCARD_SUM, get(state, State.WILDCARD_SUM) + got.get(ValueLayout.JAVA_LONG, Message.VALUE));
            put(state, State.ORDER_HASH, mix(get(state, State.ORDER_HASH), source + 1));
        }
        Request.waitAll(sends.toArray(Request[]::new));
    }

    /**
     * Receives the next message of {@code kind} from {@code source} (or any), accounting for it:
     * older than expected is a duplicate (skipped), newer means the ones between were lost.
     */
    private static MemorySegment receive(Communicator world, MemorySegment state, MemorySegment buffer, int kind, int source) {
        int n = world.size();
        while (true) {
            Status s = world.recv(buffer, buffer.byteSize(), Datatype.BYTE, source, kind);
            int sender = s.source();
            long iteration = buffer.get(ValueLayout.JAVA_LONG, Message.ITERATION);
            if (buffer.get(ValueLayout.JAVA_LONG, Message.KIND) != kind || buffer.get(ValueLayout.JAVA_LONG, Message.SENDER) != sender
                    || !patternHolds(buffer, s.byteCount())) {
                put(state, State.CORRUPT, get(state, State.CORRUPT) + 1);
                buffer.set(ValueLayout.JAVA_LONG, Message.SENDER, sender);
            }
            long expectedAt = State.expectedOffset(kind, sender, n);
            long expected = get(state, expectedAt);
            if (iteration < expected) {
                put(state, State.DUPLICATED, get(state, State.DUPLICATED) + 1);
                continue;
            }
            if (iteration > expected) {
                put(state, State.LOST, get(state, State.LOST) + iteration - expected);
            }
            put(state, expectedAt, iteration + 1);
            return buffer;
        }
    }

    private static void fill(MemorySegment m, int kind, int sender, long iteration, long value, long order, int bytes) {
        m.set(ValueLayout.JAVA_LONG, Message.KIND, kind);
        m.set(ValueLayout.JAVA_LONG, Message.SENDER, sender);
        m.set(ValueLayout.JAVA_LONG, Message.ITERATION, iteration);
        m.set(ValueLayout.JAVA_LONG, Message.VALUE, value);
        m.set(ValueLayout.JAVA_LONG, Message.ORDER, order);
        long seed = mix(mix(kind, sender), iteration);
        for (long at = Message.HEADER; at < bytes; at++) {
            m.set(ValueLayout.JAVA_BYTE, at, patternByte(seed, at));
        }
    }

    private static boolean patternHolds(MemorySegment m, long bytes) {
        if (bytes < Message.HEADER) {
            return false;
        }
        long seed = mix(mix(m.get(ValueLayout.JAVA_LONG, Message.KIND), m.get(ValueLayout.JAVA_LONG, Message.SENDER)),
                m.get(ValueLayout.JAVA_LONG, Message.ITERATION));
        for (long at = Message.HEADER; at < bytes; at++) {
            if (m.get(ValueLayout.JAVA_BYTE, at) != patternByte(seed, at)) {
                return false;
            }
        }
        return true;
    }

    private static byte patternByte(long seed, long position) {
        long h = seed + position * 0x9E3779B97F4A7C15L;
        return (byte) (h ^ (h >>> 31) ^ (h >>> 47));
    }

    /** A 64-bit mix of two values (order matters). */
    static long mix(long a, long b) {
        long h = (a ^ Long.rotateLeft(b, 23)) * 0xBF58476D1CE4E5B9L + b;
        h = (h ^ (h >>> 30)) * 0x94D049BB133111EBL;
        return h ^ (h >>> 31);
    }

    private static long get(MemorySegment state, long offset) {
        return state.get(ValueLayout.JAVA_LONG, offset);
    }

    private static void put(MemorySegment state, long offset, long value) {
        state.set(ValueLayout.JAVA_LONG, offset, value);
    }
}
