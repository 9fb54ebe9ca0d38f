package org.lockstep.bench;

import static org.lockstep.pcie.layout.SlotDescriptor.FLAGS_OFFSET;
import static org.lockstep.pcie.layout.SlotDescriptor.LENGTH_OFFSET;
import static org.lockstep.pcie.layout.SlotDescriptor.PAYLOAD_OFFSET;
import static org.lockstep.pcie.layout.SlotDescriptor.SEQUENCE_OFFSET;
import static org.lockstep.pcie.layout.SlotDescriptor.TAG_OFFSET;
import static org.lockstep.pcie.layout.SlotDescriptor.TICKET_OFFSET;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.ring.SlotHeader;
import org.lockstep.pcie.ring.SlotRing;
import org.lockstep.spi.device.WordRegion;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The mailbox protocol's own cost on one pair ring ({@link SlotRing}), sender and receiver in one
 * thread: the sender's room check, the slot written and its ticket published (header and a payload
 * of {@code payload} bytes in place), the receiver's poll of the ticket, its reads of the header and
 * payload, and the hand-back. One thread: the cache lines stay in this core, so this is the
 * instructions of a hand-off, not the cost of moving its lines between cores (the cache-line probe
 * of the ping-pong scripts measures that). Payloads up to 24 bytes travel in the header's line.
 *
 * <p>{@link #bareSegmentHandOff} is the floor beside it: the same words stored and loaded in the
 * same order on the device's memory segment itself, without the device layer (the ring's region,
 * checked once, and before it the device's checks and counters on every word) and without the
 * ring's objects.
 */
public class SlotRingBenchmark extends PathBenchmark {
    private static final int SLOTS = 64;

    @Param({"8", "24", "64", "256"})
    int payload;

    private BenchDevice device;
    private SlotRing sending;
    private SlotRing receiving;
    private SlotHeader header;
    private MemorySegment source;
    private MemorySegment target;
    private long sequence;
    private Reader reader;
    private MemorySegment memory;
    private MailboxLayout layout;
    private long slotsBase;
    private long drainedWord;
    private long bareTicket;

    /** What a receiver does with a published slot: the header words and the in-place payload. */
    private static final class Reader implements SlotRing.Reader<Boolean> {
        private final WordRegion words;
        private final MemorySegment target;
        Blackhole blackhole;

        Reader(WordRegion words, MemorySegment target) {
            this.words = words;
            this.target = target;
        }

        @Override
        public Boolean read(long slot, long ticket) {
            long at = slot - words.base();
            blackhole.consume(words.getLong(at + SEQUENCE_OFFSET));
            long length = words.getLong(at + LENGTH_OFFSET);
            blackhole.consume(words.getLong(at + TAG_OFFSET));
            blackhole.consume(words.getLong(at + FLAGS_OFFSET));
            words.read(at + PAYLOAD_OFFSET, target, 0, length);
            return Boolean.TRUE; // no boxing of a sequence number: the benchmark allocates nothing of its own
        }

        @Override
        public void take(Boolean message) {
            blackhole.consume(message);
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        MailboxConfig config = new MailboxConfig(2, SLOTS, 1024, 0, 1 << 20, 1);
        MailboxLayout layout = new MailboxLayout(config, 64);
        device = new BenchDevice(layout.requiredCapacity());
        sending = SlotRing.pair(device, layout, 0, 1);
        receiving = SlotRing.pair(device, layout, 0, 1);
        header = new SlotHeader(0);
        source = Arena.ofAuto().allocate(payload, 64);
        target = Arena.ofAuto().allocate(payload, 64);
        reader = new Reader(receiving.words(), target);
        memory = device.asSegment();
        this.layout = layout;
        long mailbox = layout.mailboxAddress(0, 1);
        slotsBase = MailboxLayout.pairSlotsBase(mailbox);
        drainedWord = MailboxLayout.lockAddress(mailbox);
    }

    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    @TearDown(Level.Trial)
    public void tearDown() {
        device.close();
    }

    /** One message through the ring: room, publish, poll, read, hand back. */
    @Benchmark
    public boolean publishAndDrain(Blackhole blackhole) {
        reader.blackhole = blackhole;
        if (!sending.hasRoom()) {
            throw new IllegalStateException("the ring is full: the receiver did not hand back");
        }
        long ticket = sending.next();
        sending.publish(ticket, header.set(++sequence, 7, 0, payload, payload, 0, 0), source, 0);
        sending.advance();
        return receiving.drain(reader);
    }

    /**
     * The floor of {@link #publishAndDrain}: room check, header words, payload, ticket (release),
     * the receiver's acquire of the ticket, header and payload loads and the hand-back, as plain
     * accesses to the device's memory segment.
     */
    @Benchmark
    public boolean bareSegmentHandOff(Blackhole blackhole) {
        long ticket = ++bareTicket;
        if ((long) WORD.getAcquire(memory, drainedWord) < ticket - SLOTS) {
            throw new IllegalStateException("the ring is full: the receiver did not hand back");
        }
        long slot = layout.slotAddress(slotsBase, ticket, SLOTS);
        memory.set(ValueLayout.JAVA_LONG, slot + SEQUENCE_OFFSET, ticket);
        memory.set(ValueLayout.JAVA_LONG, slot + LENGTH_OFFSET, payload);
        memory.set(ValueLayout.JAVA_LONG, slot + TAG_OFFSET, 7);
        memory.set(ValueLayout.JAVA_LONG, slot + FLAGS_OFFSET, 0);
        MemorySegment.copy(source, 0, memory, slot + PAYLOAD_OFFSET, payload);
        WORD.setRelease(memory, slot + TICKET_OFFSET, ticket);
        if ((long) WORD.getAcquire(memory, slot + TICKET_OFFSET) != ticket) {
            return false;
        }
        blackhole.consume(memory.get(ValueLayout.JAVA_LONG, slot + SEQUENCE_OFFSET));
        long length = memory.get(ValueLayout.JAVA_LONG, slot + LENGTH_OFFSET);
        blackhole.consume(memory.get(ValueLayout.JAVA_LONG, slot + TAG_OFFSET));
        blackhole.consume(memory.get(ValueLayout.JAVA_LONG, slot + FLAGS_OFFSET));
        MemorySegment.copy(memory, slot + PAYLOAD_OFFSET, target, 0, length);
        WORD.setRelease(memory, drainedWord, ticket);
        return true;
    }

    /** The receiver's poll of a ticket not yet published (what a waiting receiver spins on). */
    @Benchmark
    public boolean pollEmpty() {
        return receiving.hasArrival();
    }
}
