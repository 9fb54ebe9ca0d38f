package org.lockstep.tools;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep example}: every rank exchanges messages with every other rank, in sizes on both
 * sides of the mailbox's inline threshold, and checks each byte it receives.
 *
 * <p>Round {@code (size, k)} is a shift: rank r sends to r + k and receives from r − k (mod n), so
 * every pair meets once per size and no rank waits on a rank that is itself waiting.
 */
@Command(name = "example", mixinStandardHelpOptions = true,
        description = "Runs the example job: n ranks (threads of this JVM) exchange messages over the shared device, "
                + "every rank with every other, in sizes just below, at and above the inline threshold and of 1 MiB. "
                + "Every rank prints a line per message sent and received and checks each received byte; "
                + "exits 1 if any check fails.")
final class ExampleCommand implements Callable<Integer> {
    static final String INLINE_THRESHOLD_PROPERTY = "lockstep.mailbox.inlineThreshold";
    /** The mailbox transport's own default, so that the example shows what an untuned job does. */
    static final long DEFAULT_THRESHOLD = 2048;
    static final long LARGE_MESSAGE = 1L << 20;
    /** A message of {@code threshold * LARGE_FACTOR + 1} bytes needs several heap blocks of the threshold's size. */
    private static final long LARGE_FACTOR = 4;

    @Spec
    CommandSpec spec;

    @Option(names = {"-n", "--ranks"}, paramLabel = "N", defaultValue = "4",
            description = "Number of ranks (default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--threshold", paramLabel = "BYTES", defaultValue = "" + DEFAULT_THRESHOLD,
            converter = SizeList.SingleSize.class,
            description = "Inline threshold: larger messages go through the payload heap (default: ${DEFAULT-VALUE}).")
    long threshold;

    @Mixin
    JobSettings settings;

    @Override
    public Integer call() {
        if (ranks < 2) {
            throw new ParameterException(spec.commandLine(), "the example needs at least 2 ranks, got -n " + ranks);
        }
        if (threshold < 1) {
            throw new ParameterException(spec.commandLine(), "--threshold must be at least 1 byte, got " + threshold);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JobOptions options = settings.jobOptions(ranks, Map.of(INLINE_THRESHOLD_PROPERTY, Long.toString(threshold)));
        List<Long> sizes = sizes(threshold);

        out.printf("lockstep example: %d ranks (threads), provider %s, device %s, inline threshold %d B%n",
                ranks, JobSettings.providerFor(options).name(), settings.device, threshold);
        out.printf("every rank sends each other rank one message of each size: %s bytes%n",
                sizes.stream().map(String::valueOf).collect(Collectors.joining(", ")));
        out.println("(messages up to the threshold travel in the mailbox slot, larger ones by indirection)");
        out.flush();

        Exchange exchange = new Exchange(sizes, threshold, out);
        Lockstep.run(options, exchange::run);

        long expected = (long) ranks * (ranks - 1) * sizes.size();
        if (exchange.received.get() != expected) {
            throw new LockstepException(ErrorClass.INTERN,
                    "the job ended after " + exchange.received.get() + " of " + expected + " messages");
        }
        if (exchange.failures.get() > 0) {
            out.flush();
            err.printf("example FAILED: %d of %d received messages had wrong content or length (lines marked FAILED)%n",
                    exchange.failures.get(), expected);
            return 1;
        }
        out.printf("example OK: %d messages received and checked on %d ranks%n", expected, ranks);
        return 0;
    }

    /** The example's message sizes for an inline threshold {@code t}: t−1, t, t+1, 4t+1 and 1 MiB (positive, distinct, sorted). */
    static List<Long> sizes(long t) {
        TreeSet<Long> sizes = new TreeSet<>(List.of(t - 1, t, t + 1, LARGE_FACTOR * t + 1, LARGE_MESSAGE));
        sizes.removeIf(s -> s < 1);
        return new ArrayList<>(sizes);
    }

    /** The program every rank runs; one instance is shared by all rank threads. */
    static final class Exchange {
        private final List<Long> sizes;
        private final long threshold;
        private final PrintWriter out;
        final AtomicLong received = new AtomicLong();
        final AtomicLong failures = new AtomicLong();

        Exchange(List<Long> sizes, long threshold, PrintWriter out) {
            this.sizes = List.copyOf(sizes);
            this.threshold = threshold;
            this.out = out;
        }

        void run(Communicator world) {
            int me = world.rank();
            int n = world.size();
            long largest = sizes.getLast();
            MemorySegment sendBuffer = world.allocate(largest);
            MemorySegment recvBuffer = world.allocate(largest);
            for (int tag = 0; tag < sizes.size(); tag++) {
                long size = sizes.get(tag);
                for (int shift = 1; shift < n; shift++) {
                    int to = (me + shift) % n;
                    int from = (me - shift + n) % n;
                    MessagePattern.fill(sendBuffer, me, to, size);
                    recvBuffer.asSlice(0, size).fill((byte) 0);
                    Status status = world.sendrecv(sendBuffer, size, Datatype.BYTE, to, tag,
                            recvBuffer, size, Datatype.BYTE, from, tag);
                    // println(String) holds the writer's lock, so lines of different ranks do not mix.
                    out.println(line(me, "sent", size, "to  ", to, tag, MessagePattern.checksum(sendBuffer, size), path(size)));
                    out.println(line(me, "recv", size, "from", from, tag, MessagePattern.checksum(recvBuffer, size),
                            verdict(status, recvBuffer, from, me, size, tag)));
                    received.incrementAndGet();
                }
            }
            world.free(sendBuffer);
            world.free(recvBuffer);
        }

        private String path(long size) {
            return size <= threshold ? "in place" : "indirect";
        }

        /** "ok", or "FAILED: why" (counted in {@link #failures}). */
        String verdict(Status status, MemorySegment buffer, int from, int me, long size, int tag) {
            String problem = check(status, buffer, from, me, size, tag);
            if (problem == null) {
                return "ok";
            }
            failures.incrementAndGet();
            return "FAILED: " + problem;
        }

        private static String line(int me, String verb, long size, String direction, int peer, int tag, int crc, String note) {
            return String.format("rank %d %s %8d B %s rank %d  tag %d  crc32c %08x  %s", me, verb, size, direction, peer, tag, crc, note);
        }
    }

    /** What is wrong with a received message, or {@code null} if it is exactly what rank {@code from} sent. */
    static String check(Status status, MemorySegment buffer, int from, int me, long size, int tag) {
        if (status.source() != from || status.tag() != tag) {
            return "expected source " + from + " tag " + tag + ", status says source " + status.source() + " tag " + status.tag();
        }
        if (status.byteCount() != size) {
            return "expected " + size + " bytes, status says " + status.byteCount();
        }
        long bad = MessagePattern.firstMismatch(buffer, from, me, size);
        if (bad >= 0) {
            return String.format("byte %d is 0x%02x, expected 0x%02x", bad, buffer.get(ValueLayout.JAVA_BYTE, bad),
                    MessagePattern.expectedByte(from, me, size, bad));
        }
        return null;
    }
}
