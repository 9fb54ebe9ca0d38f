package org.lockstep.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Request;
import org.lockstep.spi.messaging.ThreadWorld;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Thread CPU time and allocated bytes per message, by rounds: on this shared 2-core host JMH's
 * wall-clock averages moved 2-100x with the other jobs' load, while a thread's own CPU time per
 * message repeated. Prints, per payload, the median of the second half of the rounds (the first
 * half is the JIT's). What one message is:
 * <ul>
 *   <li>{@code ring}: {@link SlotRingBenchmark#publishAndDrain}, the protocol on one pair ring;</li>
 *   <li>{@code blocking}: the whole path, one thread stepping two ranks of a mailbox thread world
 *       (mapped /dev/shm device, no asynchronous ring): {@code isend}, the matching {@code recv}, {@code await};</li>
 *   <li>{@code nonblocking}: the halo's form: {@code irecv} posted first, {@code isend}, then both awaited;</li>
 *   <li>{@code sendrecv}: the ping-pong's form: a blocking {@code send} (it returns at once: the payload travels in
 *       place and the ring has room), then the matching blocking {@code recv}.</li>
 * </ul>
 *
 * <pre>java -cp "bench/target/lockstep-bench-*.jar:bench/target/lib/*" org.lockstep.bench.CpuPerMessage ring|blocking|nonblocking|sendrecv [ROUNDS [MESSAGES [PAYLOAD...]]]</pre>
 */
public final class CpuPerMessage {
    private static final String BLACKHOLE_CONSENT =
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.";

    private CpuPerMessage() {
    }

    public static void main(String[] args) throws ReflectiveOperationException, java.io.IOException {
        String path = args.length > 0 ? args[0] : "ring";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 16;
        int messages = args.length > 2 ? Integer.parseInt(args[2]) : 500_000;
        int[] payloads = args.length > 3 ? Arrays.stream(args, 3, args.length).mapToInt(Integer::parseInt).toArray() : new int[] {8, 24, 64, 256};
        for (int payload : payloads) {
            switch (path) {
                case "ring" -> ring(rounds, messages, payload);
                case "blocking", "nonblocking", "sendrecv" -> stepped(path, rounds, messages, payload);
                default -> throw new IllegalArgumentException("path must be ring, blocking, nonblocking or sendrecv: " + path);
            }
        }
    }

    private static void ring(int rounds, int messages, int payload) {
        Blackhole blackhole = new Blackhole(BLACKHOLE_CONSENT);
        SlotRingBenchmark ring = new SlotRingBenchmark();
        ring.payload = payload;
        ring.setUp();
        try {
            report("ring", payload, measure(rounds, messages, () -> ring.publishAndDrain(blackhole)));
        } finally {
            ring.tearDown();
        }
    }

    private static void stepped(String path, int rounds, int messages, int payload) throws ReflectiveOperationException, java.io.IOException {
        java.nio.file.Path file = java.nio.file.Path.of("/dev/shm", "lockstep-cpu-per-message-" + ProcessHandle.current().pid());
        JobOptions options = JobOptions.ofRanks(2).with("lockstep.device", "mapped").with("lockstep.device.path", file.toString())
                .with("lockstep.mailbox.asyncSlots", "0");
        // The thread world is the provider's own (not exported); on the class path it is reachable.
        ThreadWorld world = (ThreadWorld) Class.forName("org.lockstep.pcie.mailbox.MailboxThreadWorld")
                .getMethod("open", JobOptions.class).invoke(null, options);
        try (world) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            MemorySegment out = Arena.ofAuto().allocate(Math.max(payload, 1), 64);
            MemorySegment in = Arena.ofAuto().allocate(Math.max(payload, 1), 64);
            Runnable message = switch (path) {
                case "blocking" -> () -> {
                    Request send = sender.isend(out, payload, Datatype.BYTE, 1, 0);
                    receiver.recv(in, payload, Datatype.BYTE, 0, 0);
                    send.await();
                };
                case "sendrecv" -> () -> {
                    sender.send(out, payload, Datatype.BYTE, 1, 0);
                    receiver.recv(in, payload, Datatype.BYTE, 0, 0);
                };
                default -> () -> {
                    Request receive = receiver.irecv(in, payload, Datatype.BYTE, 0, 0);
                    Request send = sender.isend(out, payload, Datatype.BYTE, 1, 0);
                    receive.await();
                    send.await();
                };
            };
            report(path, payload, measure(rounds, messages, message));
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /** {CPU ns, allocated bytes} per call of {@code message}, each round. */
    private static double[][] measure(int rounds, int messages, Runnable message) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double[][] perRound = new double[2][rounds];
        for (int r = 0; r < rounds; r++) {
            long cpu0 = threads.getCurrentThreadCpuTime();
            long bytes0 = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < messages; i++) {
                message.run();
            }
            perRound[0][r] = (double) (threads.getCurrentThreadCpuTime() - cpu0) / messages;
            perRound[1][r] = (double) (threads.getCurrentThreadAllocatedBytes() - bytes0) / messages;
        }
        return perRound;
    }

    private static void report(String path, int payload, double[][] perRound) {
        System.out.printf(Locale.ROOT, "CPU path=%s payload=%d ns_per_message=%.1f bytes_per_message=%.2f rounds=%s%n", path, payload,
                secondHalfMedian(perRound[0]), secondHalfMedian(perRound[1]),
                Arrays.toString(Arrays.stream(perRound[0]).map(v -> Math.round(v * 10) / 10.0).toArray()));
    }

    private static double secondHalfMedian(double[] perRound) {
        double[] late = Arrays.copyOfRange(perRound, perRound.length / 2, perRound.length);
        Arrays.sort(late);
        return late.length % 2 == 1 ? late[late.length / 2] : (late[late.length / 2 - 1] + late[late.length / 2]) / 2;
    }
}
