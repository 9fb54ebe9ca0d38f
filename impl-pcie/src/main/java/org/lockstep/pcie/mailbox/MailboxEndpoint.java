package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.SlotDescriptor.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.pcie.collective.CollectiveSite;
import org.lockstep.pcie.collective.DeviceCollectives;
import org.lockstep.pcie.layout.AsyncMailboxDescriptor;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.ArgumentChecks;
import org.lockstep.spi.messaging.Envelope;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.MatchingEngine;
import org.lockstep.spi.messaging.ProgressEngine;

/**
 * One rank's end of the mailbox transport of seed 001: MPI point-to-point over any
 * {@link ExternalMemory}.
 *
 * <p>Sending ({@code MPI_Send} of the seed's FIG. 3): {@link #lockMailbox} waits until the slot
 * for the next message of the pair (this rank, dest) has been released by the receiver,
 * {@link #placeMessage} writes the payload — in place up to the inline capacity T, else into this
 * rank's heap partition with the slot holding the offset (indirection) — and publishes the slot.
 * When the pair mailbox is full, a send may go to the receiver's asynchronous mailbox instead
 * (devices with CAS), so that the sender need not hold its buffer.
 *
 * <p>Receiving: every progress round drains newly published slots from the pair mailboxes
 * (source, this rank) and this rank's asynchronous mailbox into the {@link MatchingEngine},
 * restoring each channel's send order by sequence number. A slot stays locked — owned by the
 * receiver — until a receive matches it: {@link #copyMessage} copies the payload into the receive
 * buffer and {@link #unlockMailbox} hands the slot back. Unexpected messages are therefore never
 * copied twice; they wait in the device.
 *
 * <p>The sender reclaims a heap block when it sees the receiver release the slot that points at
 * it; heap allocation needs no device atomics because only the owning sender allocates.
 *
 * <p>When the job checkpoints ({@code lockstep.checkpoint=true}) the device is the message log
 * ({@link MessageLog}): every message, small ones too, is a persisted heap block named in the
 * sender's log directory before its slot is published, and is reclaimed only once its receiver's
 * committed checkpoint has consumed it. A new incarnation recovers in its constructor: cursors
 * from its checkpoint, unconsumed messages replayed from the log in sequence order, wildcard
 * receives forced to the logged matches, re-sends up to what its predecessor placed dropped.
 * Until the program restores its checkpoint, though, it is setting itself up again (a program
 * that duplicates the world at start does so before it restores), which is no re-execution of
 * what followed the checkpoint: those messages go outside the log and the channel's sequence
 * ({@link org.lockstep.pcie.layout.SlotDescriptor#FLAG_PREAMBLE}); numbered, they would take the
 * sequence numbers of the predecessor's post-checkpoint messages and be dropped as their re-sends.
 * Without checkpoints none of this runs and the paths above are unchanged.
 */
final class MailboxEndpoint implements ProgressEngine {
    /** Context id of the world communicator's point-to-point traffic; its collectives use the next one. */
    static final int WORLD_CONTEXT = 0;
    private static final int PEER_CHECK_INTERVAL = 64;
    private static final long PEER_CHECK_NANOS = 1_000_000;
    /** How often a process advances its heartbeat word. */
    static final long HEARTBEAT_INTERVAL_NANOS = 50_000_000;
    /**
     * A running peer on another host whose heartbeat has not moved for this long is taken for dead.
     * Peers on this host are checked by process id instead, which has no false positives.
     */
    static final long HEARTBEAT_LEASE_NANOS = 1_000_000_000;
    /** Length of the first fragment of a long message (later ones double). */
    private static final long FIRST_FRAGMENT = 8 << 10;
    /** No message is longer than this (2^48 bytes); a longer length read from the device is corruption. */
    private static final long MAX_MESSAGE_LENGTH = 1L << 48;
    /** How often a peer on this host is checked by process id. */
    private static final long PROCESS_CHECK_NANOS = 50_000_000;

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final MailboxConfig config;
    private final int rank;
    private final int size;
    private final long incarnation;
    private final int slots;
    private final int inlineCapacity;
    private final boolean asyncMailboxes;
    private final ReentrantLock lock = new ReentrantLock();
    private final MatchingEngine<IncomingMessage> matching;
    private final HeapAllocator heap;
    /** Largest payload placed in one heap block; longer messages go as several fragments. */
    private final long maxFragment;
    /** Back-off of waits: all ranks of a job are taken to share this host (the launcher's case; the thread world's). */
    private final IdleStrategy.Policy idlePolicy;
    private DeviceCollectives.BarrierAlgorithm requestedBarrier;

    // sender side, indexed by destination
    private final long[] nextPairTicket;
    /** Per destination, the receiver's drained ticket as last read (it only grows). */
    private final long[] knownDrained;
    private final long[] nextSendSequence;
    private final ArrayDeque<SendRequest>[] pendingSends;
    private int pendingSendCount;
    /** Placed messages whose slot release this sender still waits to see (ssend, indirect payloads). */
    private final ArrayList<PlacedFragment> awaitingRelease = new ArrayList<>();

    // receiver side, indexed by source
    private final long[] nextPairArrival;
    private final long[] nextReceiveSequence;
    private final TreeMap<Long, IncomingMessage>[] aheadOfSequence;
    /** Per source, heap bytes of unexpected messages this receiver keeps locked in that sender's heap. */
    private final long[] heldHeapBytes;
    /** The share of a sender's heap that one receiver may keep locked by unexpected messages. */
    private final long heldHeapBudget;
    /** Per source, the fragmented message whose later fragments are still arriving. */
    private final Reassembly[] reassembly;
    private long nextAsyncArrival = 1;
    private static final int ASYNC_POLL_INTERVAL = 4;
    private int asyncIdleRounds;
    private boolean asyncRecentlyUsed;
    /** When the asynchronous ring was first seen claimed but unpublished at its next ticket; 0 if not stuck. */
    private long asyncStuckSince;

    // failure detection
    private final long[] peerState;
    private final long[] peerHeartbeat;
    private final long[] peerHeartbeatSeenAt;
    private final long[] peerProcessCheckedAt;
    /** Peers found dead by this rank (a process check or an expired lease); never revived. */
    private final boolean[] peerDeclaredDead;
    /** Peers on this host whose process a {@link #checkPeerProcesses} call found gone (1); written by the checking thread. */
    private final java.util.concurrent.atomic.AtomicIntegerArray processGone;
    /** Whether another thread checks the peers' processes, so that the rank's waits never do. */
    private volatile boolean processesCheckedElsewhere;
    private boolean anyPeerGone;
    private int progressCalls;
    /** Progress calls, counted without the lock (a hint); every {@link #FULL_ROUND_INTERVAL}th takes the lock whatever it sees. */
    private int quietRounds;
    private static final int FULL_ROUND_INTERVAL = 4;
    private long lastPeerCheck = System.nanoTime();

    // the message log (checkpoints on); null when the job does not checkpoint
    private final MessageLog log;
    private final RestartPolicy restartPolicy;
    private final MailboxCheckpoints checkpoints;
    /** Per destination: logged messages a predecessor placed but never published, to publish before anything new. */
    private final ArrayDeque<MessageLog.Logged>[] republish;
    /**
     * A restarted incarnation that has a checkpoint to resume, until the program restores it: what
     * it sends meanwhile sets the program up again and is no part of the resumed execution, so it
     * goes outside the log ({@link org.lockstep.pcie.layout.SlotDescriptor#FLAG_PREAMBLE}).
     */
    private boolean preamble;
    /** When sends first found the log full; 0 while they do not. */
    private long logFullSince;
    /** Logged messages, or idle progress rounds, between two looks at the receivers' release cursors. */
    private static final int RECLAIM_INTERVAL = 64;
    private int loggedSinceReclaim;
    /** Per peer: the incarnation last seen in the rank table, and since when it has been dead (0: alive). */
    private final long[] peerIncarnation;
    private final long[] peerDeadSince;
    private final TransportStatistics statistics = new TransportStatistics();
    /** Buffers the program allocates, in this rank's heap partition; large messages into them go by {@link SingleCopy}. */
    private final DeviceBuffers deviceBuffers;
    private final SingleCopy singleCopy;
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);
    /** Where headers are built and parsed (used under the progress lock only). */
    private final MemorySegment headerScratch = MemorySegment.ofArray(new long[LayoutConstants.CACHE_LINE / Long.BYTES]);
    private volatile boolean closed;
    private int nextFreeContext = WORLD_CONTEXT + 2;
    private boolean deviceCollectives = true;
    private Runnable closeAction = () -> { };

    @SuppressWarnings({"unchecked", "rawtypes"})
    MailboxEndpoint(ExternalMemory device, MailboxLayout layout, int rank, long incarnation) {
        this(device, layout, rank, incarnation, MailboxOptions.DEFAULT_FRAGMENT);
    }

    MailboxEndpoint(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, long fragmentLength) {
        this(device, layout, rank, incarnation, fragmentLength, RestartPolicy.DEFAULT);
    }

    /**
     * An endpoint for incarnation {@code incarnation} of {@code rank}. When the job checkpoints and
     * this is not a first start, it first recovers from the device: its committed checkpoint, its
     * log, and the logged messages sent to it that its checkpoint had not consumed.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    MailboxEndpoint(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, long fragmentLength, RestartPolicy restartPolicy) {
        this.device = device;
        this.restartPolicy = restartPolicy;
        this.layout = layout;
        this.config = layout.config();
        this.rank = rank;
        this.size = config.worldSize();
        this.incarnation = incarnation;
        this.slots = config.slotsPerMailbox();
        this.inlineCapacity = config.inlineCapacity();
        this.asyncMailboxes = config.asyncSlots() > 0;
        this.matching = new MatchingEngine<>(size);
        this.idlePolicy = IdleStrategy.Policy.forRanksOnThisHost(size);
        this.heap = new HeapAllocator(layout.heapPartition(rank), layout.heapAllocatorLength());
        // Fragments small enough that the receiver copies one while the sender writes the next,
        // and at most a quarter of the heap so that several are in flight.
        this.maxFragment = Math.max(inlineCapacity + 1,
                Math.min(fragmentLength, layout.heapPartitionLength() / 4) & -LayoutConstants.CACHE_LINE);
        this.deviceBuffers = new DeviceBuffers(device, layout, rank, heap,
                2 * LayoutConstants.align(HeapBlockDescriptor.blockLength(maxFragment), LayoutConstants.CACHE_LINE));
        this.singleCopy = new SingleCopy(device, layout, rank, statistics, deviceBuffers,
                // with the message log on, a message must stay in the sender's heap: no single copy
                config.checkpoints() ? 0 : MailboxOptions.DEFAULT_SINGLE_COPY_THRESHOLD, config.checkpoints());
        this.reassembly = new Reassembly[config.worldSize()];
        this.heldHeapBytes = new long[config.worldSize()];
        this.heldHeapBudget = layout.heapPartitionLength() / (2L * Math.max(1, config.worldSize() - 1));
        nextPairTicket = filled(size, 1);
        knownDrained = new long[size];
        nextSendSequence = filled(size, 1);
        nextPairArrival = filled(size, 1);
        nextReceiveSequence = filled(size, 1);
        pendingSends = new ArrayDeque[size];
        aheadOfSequence = new TreeMap[size];
        for (int i = 0; i < size; i++) {
            pendingSends[i] = new ArrayDeque<>();
            aheadOfSequence[i] = new TreeMap<>();
        }
        peerState = new long[size];
        peerHeartbeat = new long[size];
        peerHeartbeatSeenAt = new long[size];
        peerProcessCheckedAt = new long[size];
        peerDeclaredDead = new boolean[size];
        processGone = new java.util.concurrent.atomic.AtomicIntegerArray(size);
        peerIncarnation = new long[size];
        peerDeadSince = new long[size];
        republish = new ArrayDeque[size];
        for (int i = 0; i < size; i++) {
            republish[i] = new ArrayDeque<>();
        }
        log = config.checkpoints() ? new MessageLog(device, layout, rank, incarnation, heap, statistics) : null;
        MessageLog.Recovery recovery = log == null ? null : recover();
        preamble = recovery != null && recovery.epoch > 0;
        checkpoints = new MailboxCheckpoints(this, recovery, incarnation);
        long entry = layout.rankEntry(rank);
        device.putLong(entry + RankTableDescriptor.INCARNATION_OFFSET, incarnation);
        device.putLong(entry + RankTableDescriptor.PID_OFFSET, ProcessHandle.current().pid());
        device.putLong(entry + RankTableDescriptor.PROCESS_START_OFFSET, HostIdentity.currentStartMillis());
        device.putLong(entry + RankTableDescriptor.HOST_OFFSET, HostIdentity.CURRENT);
        device.putLong(entry + RankTableDescriptor.DEVICE_BUFFER_BYTES_OFFSET, 0);
        device.putLongRelease(entry + RankTableDescriptor.STATE_OFFSET, RankTableDescriptor.STATE_RUNNING);
    }

    /**
     * The program restored its checkpoint: from here on it re-executes what its predecessor did
     * after that checkpoint, so its sends take the channel's sequence numbers again (and those its
     * predecessor placed are dropped as re-sends).
     */
    void restored() {
        lock.lock();
        try {
            preamble = false;
        } finally {
            lock.unlock();
        }
    }

    private static long[] filled(int n, long value) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, value);
        return a;
    }

    /** Whether communicators of this rank may use the device-native collectives (every rank of a job says the same). */
    void useDeviceCollectives(boolean use) {
        // With the message log on, collectives must go through logged point-to-point messages: a
        // restarted rank could not replay what it read from the collective area.
        deviceCollectives = use && log == null;
    }

    boolean usesDeviceCollectives() {
        return deviceCollectives;
    }

    /** The barrier the job asks for, or null to let the collectives choose. */
    void requestBarrier(DeviceCollectives.BarrierAlgorithm barrier) {
        requestedBarrier = barrier;
    }

    DeviceCollectives.BarrierAlgorithm requestedBarrier() {
        return requestedBarrier;
    }

    /** The collectives' kit self-test faults (none by default). */
    CollectiveSite.Faults collectiveFaults() {
        return restartPolicy.faults().collectiveFaults();
    }

    /**
     * Whether the job's ranks share cores, as the device's formatter found it: one answer for every
     * rank, so that the collectives all choose alike (this rank's waits back off by its own host).
     */
    boolean ranksShareCores() {
        return DeviceFormat.ranksShareCores(device);
    }

    /** Whether world rank {@code peer} is known (from the last peer check) to have failed or finished. */
    boolean isPeerGone(int peer) {
        lock.lock();
        try {
            return peer != rank && isGone(peerState[peer]);
        } finally {
            lock.unlock();
        }
    }

    /** The error of an operation that waited on world rank {@code peer}, which is gone. */
    ProcessFailedException peerGoneError(int peer, String what) {
        lock.lock();
        try {
            return peerGone(peer, what);
        } finally {
            lock.unlock();
        }
    }

    ExternalMemory device() {
        return device;
    }

    /** World rank of this endpoint. */
    int rank() {
        return rank;
    }

    /** World size. */
    int size() {
        return size;
    }

    /** A context id no communicator of this rank uses yet (communicators take two: point-to-point and collective). */
    int nextFreeContext() {
        return nextFreeContext;
    }

    /** Contexts below {@code limit} are taken (after the ranks of a communicator agreed on one). */
    void reserveContextsBelow(int limit) {
        nextFreeContext = Math.max(nextFreeContext, limit);
    }

    // ------------------------------------------------------------------ sending

    /**
     * Starts a send of {@code bytes} bytes to world rank {@code dest} on {@code context}; the
     * communicator has checked the arguments and translated the rank.
     */
    Request startSend(MemorySegment buffer, long bytes, int dest, int tag, int context, boolean synchronous, int reportedDest) {
        checkOpen();
        if ((bytes > inlineCapacity || synchronous) && LayoutConstants.align(
                HeapBlockDescriptor.blockLength(Math.min(bytes, maxFragment)), LayoutConstants.CACHE_LINE) > heap.capacity()) {
            throw new LockstepException(ErrorClass.NO_MEM, "message of " + bytes + " bytes to rank " + reportedDest
                    + " goes by indirection (inline threshold " + inlineCapacity + " bytes) in fragments of "
                    + Math.min(bytes, maxFragment) + " bytes, but the heap partition has only " + heap.capacity()
                    + " bytes; raise lockstep.mailbox.heapPerRank above the inline threshold");
        }
        SendRequest request = new SendRequest(this, buffer, bytes, dest, tag, context, synchronous, reportedDest);
        lock.lock();
        try {
            checkOpen();
            if (preamble) {
                if (LayoutConstants.align(HeapBlockDescriptor.blockLength(bytes), LayoutConstants.CACHE_LINE) > heap.capacity()) {
                    throw new LockstepException(ErrorClass.NO_MEM, "message of " + bytes + " bytes to rank " + reportedDest
                            + " sent before the restarted rank restored its checkpoint must fit one heap block, but the heap "
                            + "partition has only " + heap.capacity() + " bytes; restore the checkpoint before sending it");
                }
                request.preamble = true;
            }
            failIfPeerGone(dest, null, "send to");
            if (pendingSends[dest].isEmpty() && republish[dest].isEmpty()) {
                while (!request.fullyPlaced() && !request.abandoned && placeMessage(request)) {
                    // place as many fragments as there is room for
                }
                if (request.fullyPlaced() || request.abandoned) {
                    return request;
                }
            }
            pendingSends[dest].addLast(request);
            pendingSendCount++;
            statistics.sendsQueued++;
        } finally {
            lock.unlock();
        }
        return request;
    }

    /**
     * {@code place_message}: puts the message — or its next fragment, for one larger than a heap
     * block may be — in the next slot of the pair mailbox, or of the receiver's asynchronous
     * mailbox when the pair mailbox is full. Returns false, changing nothing on the device, when
     * neither has room or the heap has none for the payload.
     */
    private boolean placeMessage(SendRequest send) {
        // A single-copy offer waits for its answer; accepted, its payload is in the receive buffer already.
        boolean direct = false;
        if (send.rendezvous != null) {
            SingleCopy.Step step = singleCopy.awaitAnswer(send);
            if (step == SingleCopy.Step.WAITING) {
                return false;
            }
            direct = step == SingleCopy.Step.COPIED;
            if (!direct) {
                SingleCopy.Rendezvous r = send.rendezvous;
                send.rendezvous = null;
                awaitingRelease.add(new PlacedFragment(send.dest, r.block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, r.ticket,
                        r.block, r.blockLength, send.synchronous ? send : null));
                if (step == SingleCopy.Step.FAILED) {
                    return true;
                }
            }
        }
        long remaining = send.length - send.placedBytes;
        boolean first = send.fragmentsPlaced == 0;
        boolean offer = first && singleCopy.offers(send, inlineCapacity);
        // A synchronous message always goes through a heap block: its released word is the match signal.
        // With checkpoints, every message does: the heap is the message log (and single copy is off).
        boolean indirect = send.length > inlineCapacity || send.synchronous || log != null;
        boolean fragmented = indirect && !send.preamble && (send.length > Math.min(FIRST_FRAGMENT, maxFragment) || !first || offer);
        long fragmentLength = offer ? 0 : direct ? remaining
                : fragmented ? Math.min(remaining, fragmentLength(send.fragmentsPlaced)) : remaining;
        boolean last = fragmentLength == remaining;
        long heapOffset = HeapAllocator.FAILED;
        long blockLength = HeapBlockDescriptor.blockLength(fragmentLength);
        if (log != null && !send.preamble && nextSendSequence[send.dest] <= log.placedThrough(send.dest)) {
            // A restarted sender sends again what its predecessor placed after the checkpoint: the log has it.
            nextSendSequence[send.dest]++;
            send.placedBytes += fragmentLength;
            send.fragmentsPlaced++;
            statistics.resendsDropped++;
            if (last) {
                send.matchedByReceiver = true;
                send.completeSend();
            }
            return true;
        }
        if (log != null && !republish[send.dest].isEmpty()) {
            return false; // what the predecessor placed goes first
        }
        boolean logged = log != null && !send.preamble;
        if (indirect && !direct) {
            // A logged message goes to the log ring to its destination if it has room, else to the heap.
            heapOffset = logged ? log.reserveInRing(send.dest, blockLength) : HeapAllocator.FAILED;
            if (heapOffset == HeapAllocator.FAILED && logged && reclaimLog()) {
                heapOffset = log.reserveInRing(send.dest, blockLength);
            }
            if (heapOffset == HeapAllocator.FAILED && logged && !log.hasDirectoryRoom()) {
                // a logged heap block needs a directory entry too
                reclaimLog();
                if (!log.hasDirectoryRoom()) {
                    noteLogFull();
                    return false;
                }
            }
            if (heapOffset == HeapAllocator.FAILED) {
                heapOffset = heap.allocate(blockLength);
            }
            if (heapOffset == HeapAllocator.FAILED) {
                reclaim();
                if (log != null) {
                    reclaimLog();
                }
                heapOffset = heap.allocate(blockLength);
                if (heapOffset == HeapAllocator.FAILED) {
                    statistics.heapFullWaits++;
                    if (log != null) {
                        noteLogFull();
                    }
                    return false;
                }
            }
            try {
                // Before any slot is taken: a failing copy from the caller's buffer costs no ticket.
                device.putLong(heapOffset + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, 0);
                if (offer) {
                    singleCopy.prepareBlock(heapOffset);
                }
                if (fragmentLength > 0) {
                    device.write(heapOffset + HeapBlockDescriptor.PAYLOAD_OFFSET, send.buffer, send.placedBytes, fragmentLength);
                }
            } catch (RuntimeException e) {
                releaseUnpublished(send.dest, heapOffset, blockLength);
                throw e;
            }
        }
        long slot;
        long ticket;
        boolean async;
        long pairMailbox = layout.mailboxAddress(rank, send.dest);
        long pairTicket = nextPairTicket[send.dest];
        long pairSlot = layout.slotAddress(MailboxLayout.pairSlotsBase(pairMailbox), pairTicket, slots);
        if (lockMailbox(send.dest, pairMailbox, pairTicket)) {
            slot = pairSlot;
            ticket = pairTicket;
            async = false;
        } else if (asyncMailboxes && !send.preamble && (ticket = claimAsyncSlot(send.dest)) > 0) {
            slot = layout.slotAddress(layout.asyncSlotsBase(send.dest), ticket, config.asyncSlots());
            async = true;
        } else {
            if (heapOffset != HeapAllocator.FAILED) {
                releaseUnpublished(send.dest, heapOffset, blockLength);
            }
            statistics.mailboxFullWaits++;
            return false;
        }
        // The receiver of a synchronous message releases its first slot only once a receive matched it.
        int flags = send.synchronous && first ? FLAG_SYNCHRONOUS : 0;
        if (indirect) {
            flags |= FLAG_INDIRECT;
            if (fragmented) {
                flags |= first ? FLAG_FRAGMENT_FIRST : FLAG_FRAGMENT_NEXT;
            }
            flags |= offer ? FLAG_RENDEZVOUS : direct ? FLAG_DIRECT : 0;
        }
        if (send.preamble) {
            flags |= FLAG_PREAMBLE;
        }
        long sequence = send.preamble ? 0 : nextSendSequence[send.dest];
        boolean inLog = false;
        try {
            if (logged) {
                // Durable before visible: the logged block (and a heap block's directory entry) is persisted before the slot is published.
                log.log(heapOffset, blockLength, send.dest, flags, nextSendSequence[send.dest], send.tag, send.context,
                        fragmentLength, send.length);
                inLog = true;
                logFullSince = 0;
            }
            publish(slot, ticket, sequence, send.tag, send.context, fragmentLength, send.length, flags,
                    direct ? send.rendezvous.target : indirect ? heapOffset : 0, indirect ? null : send.buffer, send.placedBytes);
        } catch (RuntimeException e) {
            if (heapOffset != HeapAllocator.FAILED && !inLog) { // a logged block stays: the log reclaims it
                releaseUnpublished(send.dest, heapOffset, blockLength);
            }
            if (async) {
                // A claimed asynchronous ticket must be published, or the receiver's ring stops there.
                publish(slot, ticket, 0, 0, 0, 0, 0, FLAG_VOID, 0, EMPTY, 0);
            }
            throw e;
        }
        if (!send.preamble) {
            nextSendSequence[send.dest]++;
        }
        if (inLog && ++loggedSinceReclaim == RECLAIM_INTERVAL) {
            // Keeps the rings' working set small: a checkpoint of the receiver frees its blocks soon after.
            loggedSinceReclaim = 0;
            reclaimLog();
        }
        if (async) {
            statistics.asyncMailboxSends++;
        } else {
            nextPairTicket[send.dest]++;
            statistics.pairMailboxSends++;
        }
        send.placedBytes += fragmentLength;
        send.fragmentsPlaced++;
        statistics.bytesSent += fragmentLength;
        if (indirect) {
            statistics.indirectSends++;
        }
        if (offer) {
            send.rendezvous = new SingleCopy.Rendezvous(heapOffset, blockLength, ticket);
        } else if (direct) {
            // The receiver matched the offer before it answered: a synchronous send is matched.
            SingleCopy.Rendezvous r = send.rendezvous;
            send.rendezvous = null;
            send.matchedByReceiver = true;
            awaitingRelease.add(new PlacedFragment(send.dest, r.block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, r.ticket,
                    r.block, r.blockLength, null));
        } else {
            statistics.bytesCopied += fragmentLength;
        }
        if (log != null && !send.preamble) {
            // The log frees the block (after the receiver's checkpoint); the release word only completes a synchronous send.
            if (send.synchronous && first) {
                awaitingRelease.add(new PlacedFragment(send.dest, heapOffset + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, ticket,
                        HeapAllocator.FAILED, 0, send));
            }
        } else if (indirect && !offer && !direct) {
            awaitingRelease.add(new PlacedFragment(send.dest, heapOffset + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, ticket,
                    heapOffset, blockLength, send.synchronous && first ? send : null));
        }
        if (last) {
            statistics.messagesSent++;
            if (!send.synchronous || send.matchedByReceiver) {
                send.completeSend();
            }
        }
        return true;
    }

    /**
     * Length of fragment {@code k} of a long message: the first is small so that the receiver can
     * start copying at once; each next one doubles, up to the largest fragment, so that long
     * messages do not pay a slot per few kilobytes.
     */
    private long fragmentLength(int k) {
        return k >= 30 ? maxFragment : Math.min(maxFragment, FIRST_FRAGMENT << k);
    }

    /** Gives back a block that was never published: a pending log ring reservation, or a heap block. */
    private void releaseUnpublished(int dest, long block, long blockLength) {
        if (log == null || !log.rollback(dest, block)) {
            heap.release(block, blockLength);
        }
    }

    /**
     * Writes a slot — header and in-place payload, or header and indirect descriptor — in as few
     * device transactions as it fits in, then publishes the ticket. A payload that fits in the
     * header's cache line travels with the header, as one line.
     */
    private void publish(long slot, long ticket, long sequence, int tag, int context, long length, long messageLength,
                         int flags, long heapOffset, MemorySegment inlineSource, long sourceOffset) {
        if (inlineSource == null) {
            // An indirect slot is header and descriptor only: word stores, no bulk copy through a scratch segment.
            device.putLong(slot + SEQUENCE_OFFSET, sequence);
            device.putLong(slot + LENGTH_OFFSET, length);
            device.putLong(slot + TAG_OFFSET, intPair(tag, context));
            device.putLong(slot + FLAGS_OFFSET, intPair(flags, rank));
            device.putLong(slot + HEAP_OFFSET_OFFSET, heapOffset);
            device.putLong(slot + MESSAGE_LENGTH_OFFSET, messageLength);
            device.putLong(slot + SENDER_INCARNATION_OFFSET, incarnation);
            device.putLongRelease(slot + TICKET_OFFSET, ticket);
            return;
        }
        MemorySegment h = headerScratch;
        h.set(ValueLayout.JAVA_LONG_UNALIGNED, SEQUENCE_OFFSET, sequence);
        h.set(ValueLayout.JAVA_LONG_UNALIGNED, LENGTH_OFFSET, length);
        h.set(ValueLayout.JAVA_INT_UNALIGNED, TAG_OFFSET, tag);
        h.set(ValueLayout.JAVA_INT_UNALIGNED, CONTEXT_OFFSET, context);
        h.set(ValueLayout.JAVA_INT_UNALIGNED, FLAGS_OFFSET, flags);
        h.set(ValueLayout.JAVA_INT_UNALIGNED, SOURCE_OFFSET, rank);
        long burst = HEADER_BURST_LENGTH;
        if (length <= INDIRECT_DESCRIPTOR_LENGTH) {
            MemorySegment.copy(inlineSource, sourceOffset, h, PAYLOAD_OFFSET, length);
            burst += length;
        } else {
            device.write(slot + PAYLOAD_OFFSET, inlineSource, sourceOffset, length);
        }
        device.write(slot + SEQUENCE_OFFSET, h, SEQUENCE_OFFSET, burst);
        device.putLongRelease(slot + TICKET_OFFSET, ticket);
    }

    /**
     * {@code lock_mailbox} for the sender: whether the slot for message {@code ticket} of the pair
     * mailbox to {@code dest} has been drained by the receiver (its previous occupant was
     * {@code ticket - slots}). The drained ticket is re-read only when the cached one says no.
     */
    private boolean lockMailbox(int dest, long mailbox, long ticket) {
        long needed = ticket - slots;
        if (needed <= knownDrained[dest]) {
            return true;
        }
        knownDrained[dest] = device.getLongAcquire(MailboxLayout.lockAddress(mailbox));
        return needed <= knownDrained[dest];
    }

    /** Claims the next ticket of {@code dest}'s asynchronous mailbox, or returns 0 if it is full. */
    private long claimAsyncSlot(int dest) {
        long claimWord = layout.asyncMailboxAddress(dest) + AsyncMailboxDescriptor.CLAIMED_TICKET_OFFSET;
        long drainedWord = layout.asyncLockAddress(dest);
        int ringSlots = config.asyncSlots();
        for (int attempt = 0; attempt < 8; attempt++) {
            long claimed = device.getLongVolatile(claimWord);
            long ticket = claimed + 1;
            if (ticket - ringSlots > device.getLongAcquire(drainedWord)) {
                return 0;
            }
            if (device.compareAndSetLong(claimWord, claimed, ticket)) {
                // Says who holds the claim, so that the receiver can skip it if this process dies now.
                long slot = layout.slotAddress(layout.asyncSlotsBase(dest), ticket, ringSlots);
                device.putLongRelease(slot + SEQUENCE_OFFSET, claimMark(ticket, rank));
                return ticket;
            }
        }
        return 0;
    }

    /** What a claimer writes in a claimed asynchronous slot's sequence word until it publishes (never a sequence number). */
    static long claimMark(long ticket, int claimer) {
        return -((ticket << 16) | claimer) - 1;
    }

    /**
     * The receiver's side of a claim whose claimer died before publishing: the asynchronous ring
     * would stop at that ticket for every sender. A claim marked by a rank that is gone, or one
     * left unmarked and unpublished for twice the lease while some rank is gone, is skipped.
     */
    private void skipAbandonedAsyncClaim(long now) {
        long expected = nextAsyncArrival;
        long claimed = device.getLongVolatile(layout.asyncMailboxAddress(rank) + AsyncMailboxDescriptor.CLAIMED_TICKET_OFFSET);
        long slot = layout.slotAddress(layout.asyncSlotsBase(rank), expected, config.asyncSlots());
        if (claimed < expected || device.getLongAcquire(slot + TICKET_OFFSET) == expected) {
            asyncStuckSince = 0;
            return;
        }
        if (asyncStuckSince == 0) {
            asyncStuckSince = now;
        }
        long mark = device.getLongAcquire(slot + SEQUENCE_OFFSET);
        boolean markedByGone = false;
        for (int peer = 0; peer < size && !markedByGone; peer++) {
            markedByGone = mark == claimMark(expected, peer) && peer != rank && isGone(peerState[peer]);
        }
        boolean abandoned = markedByGone || (now - asyncStuckSince > 2 * HEARTBEAT_LEASE_NANOS && anyPeerGone);
        if (abandoned) {
            nextAsyncArrival++;
            asyncStuckSince = 0;
            device.putLongRelease(layout.asyncLockAddress(rank), nextAsyncArrival - 1);
            statistics.abandonedClaimsSkipped++;
        }
    }

    /** Frees heap blocks and completes synchronous sends whose slots the receivers have released. */
    private boolean reclaim() {
        boolean any = false;
        for (Iterator<PlacedFragment> it = awaitingRelease.iterator(); it.hasNext(); ) {
            PlacedFragment placed = it.next();
            if (device.getLongAcquire(placed.lockAddress()) >= placed.ticket()) {
                it.remove();
                if (placed.heapOffset() != HeapAllocator.FAILED) {
                    heap.release(placed.heapOffset(), placed.heapLength());
                }
                SendRequest synchronous = placed.completes();
                if (synchronous != null) {
                    synchronous.matchedByReceiver = true;
                    if (synchronous.fullyPlaced()) {
                        synchronous.completeSend();
                    }
                }
                any = true;
            }
        }
        return any;
    }

    private boolean placePendingSends() {
        boolean any = false;
        if (log != null) {
            any = republishLogged();
        }
        if (pendingSendCount == 0) {
            return any;
        }
        for (int dest = 0; dest < size; dest++) {
            ArrayDeque<SendRequest> queue = pendingSends[dest];
            while (!queue.isEmpty() && placeMessage(queue.peekFirst())) {
                any = true;
                if (queue.peekFirst().fullyPlaced() || queue.peekFirst().abandoned) {
                    queue.pollFirst();
                    pendingSendCount--;
                }
            }
            if (!queue.isEmpty() && logFullSince != 0
                    && System.nanoTime() - logFullSince > restartPolicy.logFullWait().toNanos()) {
                SendRequest stuck = queue.pollFirst();
                pendingSendCount--;
                stuck.failWith(logFullError(stuck));
                logFullSince = 0;
                any = true;
            }
        }
        return any;
    }

    // ------------------------------------------------------------------ the message log (checkpoints on)

    private void noteLogFull() {
        statistics.logFullWaits++;
        if (logFullSince == 0) {
            logFullSince = System.nanoTime();
        }
    }

    private LockstepException logFullError(SendRequest send) {
        return new LockstepException(ErrorClass.NO_MEM, "rank " + rank + ": send of " + send.length + " bytes to rank "
                + send.reportedDest + " waited " + restartPolicy.logFullWait().toMillis() + " ms for room in the message log: "
                + statistics.retainedBytes + " bytes of " + layout.heapPartitionLength() + " in this rank's heap partition (log rings "
                + "included) are retained for receivers that "
                + "have not checkpointed past them; checkpoint more often or enlarge the device (" + MailboxOptions.HEAP_PER_RANK + ")");
    }

    /** Frees logged messages whose receivers have checkpointed past them (or have finished for good). */
    private boolean reclaimLog() {
        return log.reclaim(dest -> dest != rank && peerState[dest] == RankTableDescriptor.STATE_FINISHED
                || dest != rank && isGone(peerState[dest]) && !restartPolicy.restartOnFailure());
    }

    /** Publishes, in order, the logged messages a predecessor placed but died before publishing. */
    private boolean republishLogged() {
        boolean any = false;
        for (int dest = 0; dest < size; dest++) {
            ArrayDeque<MessageLog.Logged> queue = republish[dest];
            while (!queue.isEmpty()) {
                MessageLog.Logged logged = queue.peekFirst();
                long mailbox = layout.mailboxAddress(rank, dest);
                long ticket = nextPairTicket[dest];
                if (!lockMailbox(dest, mailbox, ticket)) {
                    break;
                }
                publish(layout.slotAddress(MailboxLayout.pairSlotsBase(mailbox), ticket, slots), ticket, logged.sequence(),
                        logged.tag(), logged.context(), logged.length(), logged.messageLength(), logged.flags(), logged.block(), null, 0);
                nextPairTicket[dest]++;
                queue.pollFirst();
                statistics.messagesRepublished++;
                any = true;
            }
        }
        return any;
    }

    /**
     * A restart: reads the checkpoint and the log, and sets every cursor from them. Rings resume
     * where the device says: this rank's receive side after the slots it had handed back (what it
     * had taken but not consumed is in the log), its send side after the last slot it published.
     */
    private MessageLog.Recovery recover() {
        MessageLog.Recovery recovery = log.recover();
        restartPolicy.faults().replaying(recovery.replay); // kit self-test fault hook, off by default
        for (int peer = 0; peer < size; peer++) {
            // send side: resume each ring after its last published ticket
            long mailbox = layout.mailboxAddress(rank, peer);
            long ring = MailboxLayout.pairSlotsBase(mailbox);
            long drained = device.getLongAcquire(MailboxLayout.lockAddress(mailbox));
            long ticket = drained + 1;
            while (ticket - drained <= slots && device.getLongAcquire(layout.slotAddress(ring, ticket, slots) + TICKET_OFFSET) == ticket) {
                ticket++;
            }
            nextPairTicket[peer] = ticket;
            knownDrained[peer] = drained;
            long publishedThrough = 0;
            // The last slot still in the ring that carries a logged message (a preamble one has no sequence number).
            for (long t = ticket - 1; t >= 1 && ticket - t <= slots; t--) {
                long last = layout.slotAddress(ring, t, slots);
                if (device.getLongAcquire(last + TICKET_OFFSET) != t) {
                    break;
                }
                if ((device.getInt(last + FLAGS_OFFSET) & FLAG_PREAMBLE) == 0) {
                    publishedThrough = device.getLong(last + SEQUENCE_OFFSET);
                    break;
                }
            }
            republish[peer].addAll(log.unpublished(peer, publishedThrough));
            nextSendSequence[peer] = recovery.sentAtCheckpoint[peer] + 1;
            // receive side: after the slots handed back; the log has what was taken and not consumed
            long inbox = layout.mailboxAddress(peer, rank);
            nextPairArrival[peer] = device.getLongAcquire(MailboxLayout.lockAddress(inbox)) + 1;
            nextReceiveSequence[peer] = log.skipConsumed(peer, 1);
        }
        for (int source = 0; source < size; source++) {
            for (IncomingMessage message : recovery.replay.get(source)) {
                accept(message);
            }
        }
        return recovery;
    }

    /** Commits a checkpoint of this rank: cursors plus {@code state}. */
    org.lockstep.api.Checkpoints.CheckpointResult checkpoint(MemorySegment state, long stateBytes) {
        checkOpen();
        lock.lock();
        try {
            checkOpen();
            progressLocked();
            IdleStrategy idle = new IdleStrategy();
            long deadline = System.nanoTime() + restartPolicy.logFullWait().toNanos();
            while (pendingSendCount > 0 && System.nanoTime() - deadline < 0) {
                lock.unlock();
                try {
                    idle.idle();
                } finally {
                    lock.lock();
                }
                progressLocked();
            }
            if (pendingSendCount > 0 || matching.postedReceives().iterator().hasNext() || receiveInProgress()) {
                throw new LockstepException(ErrorClass.PENDING, "rank " + rank + ": checkpoint with requests of this rank pending ("
                        + pendingSendCount + " sends not yet placed, posted or partly received receives); checkpoint where none is");
            }
            long written = log.commit(nextSendSequence, state);
            reclaimLog();
            return new org.lockstep.api.Checkpoints.CheckpointResult(log.committedEpoch(), true, stateBytes, written);
        } finally {
            lock.unlock();
        }
    }

    private boolean receiveInProgress() {
        for (Reassembly r : reassembly) {
            if (r != null && r.receive != null) {
                return true;
            }
        }
        return false;
    }

    /** A receive matched {@code message}: a wildcard match is logged (persisted) before the receive completes. */
    void matched(ReceiveRequest request, IncomingMessage message) {
        if (log == null || !request.wildcard || (message.flags & FLAG_PREAMBLE) != 0) {
            return;
        }
        if (request.replayedSequence > 0) {
            if (message.sequence != request.replayedSequence) {
                throw new LockstepException(ErrorClass.INTERN, "rank " + rank + ": replayed wildcard receive matched sequence "
                        + message.sequence + " from rank " + message.source + ", the log says " + request.replayedSequence
                        + ": the program is not deterministic between checkpoint and crash");
            }
            return;
        }
        log.logWildcardMatch(message.source, message.sequence);
    }

    /** The program has consumed a whole message, fragments {@code first..last}. */
    void consumed(int source, long first, long last) {
        if (log != null && first > 0) { // a preamble message (sequence 0) is no part of the channel
            log.consumed(source, first, last);
            restartPolicy.faults().consumed(device, layout, rank, source, last); // kit self-test fault hook, off by default
        }
    }

    /** This rank's checkpoints (the declared no-op kind when the job does not checkpoint). */
    org.lockstep.api.Checkpoints checkpoints() {
        return log == null ? org.lockstep.api.Checkpoints.unsupported() : checkpoints;
    }

    /** The message log, for tests; null without checkpoints. */
    MessageLog messageLog() {
        return log;
    }

    // ------------------------------------------------------------------ receiving

    /**
     * Posts a receive from world rank {@code source} (or {@code ANY_SOURCE}) on {@code context};
     * the communicator has checked the arguments and translated the rank.
     */
    Request startReceive(MemorySegment buffer, long capacity, int source, int tag, int context, Group group) {
        checkOpen();
        lock.lock();
        ReceiveRequest request = null;
        try {
            checkOpen();
            // Posted before the drain, so that a single-copy offer already in the ring meets it (and is
            // accepted) instead of arriving unexpected; the order of matches is the same either way.
            long replayed = 0;
            if (log != null && source == Communicator.ANY_SOURCE && !preamble) {
                // A restarted rank's wildcard receive matches the sender its predecessor's matched, as logged.
                long[] logged = restartPolicy.faults().forgetsWildcardOrder() ? null : log.nextReplayedWildcard(); // kit self-test fault hook
                if (logged != null) {
                    source = (int) logged[0];
                    replayed = logged[1];
                }
            }
            request = new ReceiveRequest(this, buffer, capacity, source, tag, context, group);
            // Before its checkpoint is restored, a restarted rank's wildcard matches are not the resumed execution's.
            request.wildcard = log != null && !preamble && (replayed > 0 || source == Communicator.ANY_SOURCE);
            request.replayedSequence = replayed;
            MatchingEngine.Arrival<IncomingMessage> found = matching.post(request.posted);
            if (found != null) {
                request.deliver(found.handle());
            } else {
                drainArrivals();
                if (!request.isMatched()) {
                    failIfPeerGone(source, group, "receive from");
                }
            }
        } catch (RuntimeException failed) {
            if (request != null) {
                matching.cancel(request.posted);
            }
            throw failed;
        } finally {
            lock.unlock();
        }
        return request;
    }

    /** Blocks until a message from {@code source} (world rank or ANY_SOURCE) on {@code context} is there. */
    Status probe(int source, int tag, int context, Group group) {
        IdleStrategy idle = newIdleStrategy();
        while (true) {
            Optional<Status> found = iprobe(source, tag, context, group);
            if (found.isPresent()) {
                return found.get();
            }
            lock.lock();
            try {
                failIfPeerGone(source, group, "probe for");
            } finally {
                lock.unlock();
            }
            idle.idle();
        }
    }

    /** The status of a matching message if one is there now; the source in group ranks. */
    Optional<Status> iprobe(int source, int tag, int context, Group group) {
        checkOpen();
        lock.lock();
        try {
            checkOpen();
            progressLocked();
            MatchingEngine.Arrival<IncomingMessage> found = matching.probe(source, tag, context);
            return found == null ? Optional.empty()
                    : Optional.of(Status.of(group.rankOf(found.envelope().source()), found.envelope().tag(), found.byteLength()));
        } finally {
            lock.unlock();
        }
    }

    boolean cancelReceive(ReceiveRequest request) {
        lock.lock();
        try {
            return matching.cancel(request.posted);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves every newly published slot into the matching engine, in each channel's send order,
     * and hands the drained slots back to each sender with one store of the drained ticket.
     */
    private boolean drainArrivals() {
        boolean any = false;
        for (int source = 0; source < size; source++) {
            if (source == rank && nextPairTicket[rank] == nextPairArrival[rank]) {
                continue; // nothing sent to itself is waiting: save the device read
            }
            long mailbox = layout.mailboxAddress(source, rank);
            long ring = MailboxLayout.pairSlotsBase(mailbox);
            long first = nextPairArrival[source];
            while (true) {
                long ticket = nextPairArrival[source];
                long slot = layout.slotAddress(ring, ticket, slots);
                if (device.getLongAcquire(slot + TICKET_OFFSET) != ticket) {
                    break;
                }
                IncomingMessage message = readSlot(slot, ticket, source);
                nextPairArrival[source]++;
                accept(message);
            }
            if (nextPairArrival[source] != first) {
                device.putLongRelease(MailboxLayout.lockAddress(mailbox), nextPairArrival[source] - 1);
                any = true;
            }
        }
        // The asynchronous mailbox fills only when pair mailboxes are full: while it stays empty it
        // is read every few rounds, not on every one.
        if (asyncMailboxes && (asyncIdleRounds++ % ASYNC_POLL_INTERVAL == 0 || asyncRecentlyUsed)) {
            asyncRecentlyUsed = false;
            long base = layout.asyncSlotsBase(rank);
            long first = nextAsyncArrival;
            while (true) {
                long ticket = nextAsyncArrival;
                long slot = layout.slotAddress(base, ticket, config.asyncSlots());
                if (device.getLongAcquire(slot + TICKET_OFFSET) != ticket) {
                    break;
                }
                IncomingMessage message = readSlot(slot, ticket, -1);
                nextAsyncArrival++;
                asyncRecentlyUsed = true;
                if (message != null) {
                    accept(message);
                }
            }
            if (nextAsyncArrival != first) {
                device.putLongRelease(layout.asyncLockAddress(rank), nextAsyncArrival - 1);
                any = true;
            }
        }
        return any;
    }

    /**
     * Reads and checks a published slot's header; a corrupt header fails here, before any payload
     * is touched. A void asynchronous slot is released at once and gives null.
     */
    private IncomingMessage readSlot(long slot, long ticket, int expectedSource) {
        // The ticket was read with acquire, so these plain loads see what the sender wrote before it.
        long sequence = device.getLong(slot + SEQUENCE_OFFSET);
        long length = device.getLong(slot + LENGTH_OFFSET);
        long tagWord = device.getLong(slot + TAG_OFFSET);
        long flagsWord = device.getLong(slot + FLAGS_OFFSET);
        int tag = lowInt(tagWord);
        int context = highInt(tagWord);
        int flags = lowInt(flagsWord);
        int source = highInt(flagsWord);
        if (flags == FLAG_VOID && expectedSource < 0) {
            return null;
        }
        if (source < 0 || source >= size || (expectedSource >= 0 && source != expectedSource)) {
            throw corrupt(slot, "source rank " + source + (expectedSource >= 0 ? " in the mailbox of sender " + expectedSource : ""));
        }
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw corrupt(slot, "unknown flags 0x" + Integer.toHexString(flags));
        }
        boolean preambleSlot = (flags & FLAG_PREAMBLE) != 0;
        if (tag < 0 || context < 0 || (preambleSlot ? sequence != 0 : sequence < 1)) {
            throw corrupt(slot, "tag " + tag + ", context " + context + ", sequence " + sequence);
        }
        if (preambleSlot && ((flags & FLAG_INDIRECT) == 0 || expectedSource < 0
                || (flags & (FLAG_FRAGMENT_FIRST | FLAG_FRAGMENT_NEXT | FLAG_RENDEZVOUS | FLAG_DIRECT)) != 0)) {
            throw corrupt(slot, "preamble flags 0x" + Integer.toHexString(flags) + (expectedSource < 0 ? " in the asynchronous mailbox" : ""));
        }
        if ((flags & FLAG_INDIRECT) != 0) {
            long block = device.getLong(slot + HEAP_OFFSET_OFFSET);
            long messageLength = device.getLong(slot + MESSAGE_LENGTH_OFFSET);
            boolean fragment = (flags & (FLAG_FRAGMENT_FIRST | FLAG_FRAGMENT_NEXT)) != 0;
            if (messageLength < 0 || messageLength > MAX_MESSAGE_LENGTH
                    // a later fragment may carry all of it, after a first fragment with no payload (a declined single-copy offer)
                    || (fragment ? messageLength < length || (flags & FLAG_FRAGMENT_FIRST) != 0 && messageLength == length
                    || (flags & FLAG_FRAGMENT_FIRST) != 0 && (flags & FLAG_FRAGMENT_NEXT) != 0
                    : messageLength != length)) {
                throw corrupt(slot, "fragment flags 0x" + Integer.toHexString(flags) + " with length " + length
                        + " of a message of " + messageLength);
            }
            if ((flags & (FLAG_RENDEZVOUS | FLAG_DIRECT)) != 0) {
                if ((flags & FLAG_RENDEZVOUS) != 0 ? (flags & FLAG_FRAGMENT_FIRST) == 0 || length != 0 || (flags & FLAG_DIRECT) != 0
                        : (flags & FLAG_FRAGMENT_NEXT) == 0) {
                    throw corrupt(slot, "single-copy flags 0x" + Integer.toHexString(flags) + " with length " + length);
                }
                if ((flags & FLAG_DIRECT) != 0) {
                    layout.checkBufferRange(rank, block, length);
                    return new IncomingMessage(slot, ticket, sequence, source, tag, context, length, messageLength, flags,
                            block, IncomingMessage.NO_LOCK);
                }
            }
            layout.checkHeapRange(source, block, length);
            return new IncomingMessage(slot, ticket, sequence, source, tag, context, length, messageLength, flags,
                    block + HeapBlockDescriptor.PAYLOAD_OFFSET, block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET);
        }
        if (length < 0 || length > inlineCapacity || flags != 0) {
            throw corrupt(slot, "in-place length " + length + " (inline capacity " + inlineCapacity + "), flags 0x"
                    + Integer.toHexString(flags));
        }
        return new IncomingMessage(slot, ticket, sequence, source, tag, context, length, length, flags,
                slot + PAYLOAD_OFFSET, IncomingMessage.NO_LOCK);
    }

    private static final boolean LITTLE_ENDIAN = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

    /** The 8-byte word holding int {@code first} at its offset and int {@code second} 4 bytes after (device byte order is native). */
    static long intPair(int first, int second) {
        return LITTLE_ENDIAN ? ((long) second << 32) | (first & 0xffffffffL) : ((long) first << 32) | (second & 0xffffffffL);
    }

    /** The int at a word's offset ({@link #intPair}'s first). */
    static int lowInt(long word) {
        return LITTLE_ENDIAN ? (int) word : (int) (word >>> 32);
    }

    /** The int 4 bytes after a word's offset ({@link #intPair}'s second). */
    static int highInt(long word) {
        return LITTLE_ENDIAN ? (int) (word >>> 32) : (int) word;
    }

    private DeviceException corrupt(long slot, String what) {
        return new DeviceException(ErrorClass.INTERN, "corrupt device " + device.name() + ": slot at offset " + slot
                + " read by rank " + rank + " has " + what);
    }

    /** Hands arrivals to matching in channel order; an arrival ahead of its channel waits for the gap to fill. */
    private void accept(IncomingMessage message) {
        int source = message.source;
        if ((message.flags & FLAG_PREAMBLE) != 0) {
            deliver(message); // outside the channel's sequence: in ring order
            return;
        }
        long expected = nextReceiveSequence[source];
        if (message.sequence == expected) {
            deliver(message);
            expected = nextExpected(source, expected + 1);
            nextReceiveSequence[source] = expected;
            TreeMap<Long, IncomingMessage> ahead = aheadOfSequence[source];
            IncomingMessage next;
            while (!ahead.isEmpty() && (next = ahead.remove(expected)) != null) {
                deliver(next);
                expected = nextExpected(source, expected + 1);
                nextReceiveSequence[source] = expected;
            }
            if (log != null && !ahead.isEmpty()) {
                ahead.headMap(expected).clear(); // consumed before a restart: already delivered or not needed
            }
        } else if (message.sequence > expected) {
            if (!message.isIndirect()) {
                spill(message); // its slot is handed back with this drain
            }
            if (aheadOfSequence[source].put(message.sequence, message) != null) {
                if (log != null) {
                    statistics.duplicatesDropped++; // replayed from the log and published as well
                    return;
                }
                throw corrupt(message.slotAddress, "a second message with sequence number " + message.sequence);
            }
        } else if (log != null) {
            statistics.duplicatesDropped++; // a replayed message seen again in the ring, or republished
        } else {
            throw corrupt(message.slotAddress, "sequence number " + message.sequence + " from rank " + source
                    + ", already received up to " + (expected - 1));
        }
    }

    /** The sequence number expected after {@code next - 1}: one that a restored checkpoint has consumed is skipped. */
    private long nextExpected(int source, long next) {
        return log == null ? next : log.skipConsumed(source, next);
    }

    private void deliver(IncomingMessage message) {
        int source = message.source;
        if ((message.flags & FLAG_FRAGMENT_NEXT) != 0) {
            appendFragment(message);
            return;
        }
        if (reassembly[source] != null && (message.flags & FLAG_PREAMBLE) == 0) {
            throw corrupt(message.slotAddress, "a new message from rank " + source + " before the last fragment of the previous one");
        }
        if ((message.flags & FLAG_FRAGMENT_FIRST) != 0) {
            message.reassembly = new Reassembly(message);
            reassembly[source] = message.reassembly;
        }
        statistics.messagesReceived++;
        MatchingEngine.PostedReceive posted = matching.arrive(new MatchingEngine.Arrival<>(
                new Envelope(source, message.tag, message.context), message.messageLength, message));
        ReceiveRequest receive = posted == null ? null : ((ReceiveRequest.Posted) posted).request;
        if ((message.flags & FLAG_RENDEZVOUS) != 0) {
            singleCopy.answer(message, receive); // before the delivery below releases the offer's block
        }
        if (receive != null) {
            receive.deliver(message);
            return;
        }
        holdOrSpill(message);
    }

    /**
     * An unexpected message: an in-place one is copied out and its slot released at once (a held
     * slot would stop the ring, and a receive the program posts later for a later message would
     * never match — MPI's progress rule forbids that). An indirect one stays locked in its
     * sender's heap while the receiver holds no more than its share of that heap; beyond, it is
     * copied out too. A synchronous message always stays: its release is the sender's signal.
     */
    private void holdOrSpill(IncomingMessage message) {
        if (message.isSynchronous()) {
            return;
        }
        if (message.isIndirect() && heldHeapBytes[message.source] + message.length <= heldHeapBudget) {
            heldHeapBytes[message.source] += message.length;
            message.held = true;
            return;
        }
        spill(message);
    }

    /** Copies a payload into this rank's memory and hands its device space back. */
    private void spill(IncomingMessage message) {
        if (message.spilled != null) {
            return;
        }
        // Java heap, not an automatic arena: an arena's native allocation and cleaner cost a microsecond per unexpected message.
        MemorySegment copy = message.length == 0 ? EMPTY
                : MemorySegment.ofArray(new long[(int) ((message.length + Long.BYTES - 1) / Long.BYTES)]).asSlice(0, message.length);
        if (message.length > 0) {
            device.read(message.payloadAddress, copy, 0, message.length);
            statistics.bytesCopied += message.length;
        }
        if (message.payloadLockAddress != IncomingMessage.NO_LOCK && (log == null || message.isSynchronous() || message.isPreamble())) {
            device.putLongRelease(message.payloadLockAddress, message.ticket);
        }
        if (message.held) {
            heldHeapBytes[message.source] -= message.length;
            message.held = false;
        }
        message.spilled = copy;
        statistics.messagesSpilled++;
    }

    /** A later fragment: into the matched receive's buffer, or into staging memory until a receive matches. */
    private void appendFragment(IncomingMessage fragment) {
        Reassembly r = reassembly[fragment.source];
        if (r == null || fragment.messageLength != r.first.messageLength || fragment.tag != r.first.tag
                || fragment.length > r.first.messageLength - r.arrived) {
            throw corrupt(fragment.slotAddress, "a fragment that continues no message in progress from rank " + fragment.source);
        }
        long offset = r.arrived;
        if (fragment.isDirect() != r.directTarget >= 0
                || fragment.isDirect() && fragment.payloadAddress != r.directTarget + offset - r.first.length) {
            throw corrupt(fragment.slotAddress, "a fragment at device offset " + fragment.payloadAddress
                    + " that does not continue the single-copy delivery into " + r.directTarget);
        }
        r.arrived += fragment.length;
        r.lastSequence = fragment.sequence;
        if (r.isComplete()) {
            reassembly[fragment.source] = null;
        }
        if (r.receive != null) {
            r.receive.appendFragment(fragment, offset);
        } else {
            device.read(fragment.payloadAddress, r.staging(), offset - r.first.length, fragment.length);
            statistics.bytesCopied += fragment.length;
            unlockMailbox(fragment);
            statistics.fragmentsStaged++;
        }
    }

    /** {@code copy_message}: copies the payload into the receive buffer at {@code offset}, up to {@code capacity}. */
    long copyMessage(IncomingMessage message, MemorySegment buffer, long offset, long capacity) {
        long n = Math.max(0, Math.min(message.length, capacity - offset));
        if (n > 0 && !message.isDirect()) { // a direct fragment was written into the buffer by its sender
            statistics.bytesCopied += n;
            if (message.spilled != null) {
                MemorySegment.copy(message.spilled, 0, buffer, offset, n);
            } else {
                device.read(message.payloadAddress, buffer, offset, n);
            }
        }
        statistics.bytesReceived += n;
        return n;
    }

    /**
     * {@code unlock_mailbox}: hands an indirect payload's heap block back to its sender. (Slots go
     * back in order when a drain ends; an in-place payload has been copied out by then.)
     */
    void unlockMailbox(IncomingMessage message) {
        if (message.held) {
            heldHeapBytes[message.source] -= message.length;
            message.held = false;
        }
        if (message.spilled != null) {
            message.spilled = null;
        } else if (message.payloadLockAddress != IncomingMessage.NO_LOCK && (log == null || message.isSynchronous() || message.isPreamble())) {
            device.putLongRelease(message.payloadLockAddress, message.ticket);
        }
    }

    // ------------------------------------------------------------------ progress and failures

    /** Waits spin for long while this host's ranks have a core each (see {@link IdleStrategy.Policy}). */
    @Override
    public IdleStrategy newIdleStrategy() {
        return new IdleStrategy(idlePolicy);
    }

    @Override
    public boolean progress() {
        // A waiting rank spins here: most rounds only look for a new slot, without taking the lock.
        if ((++quietRounds & (FULL_ROUND_INTERVAL - 1)) != 0 && nothingArrived()) {
            return false;
        }
        lock.lock();
        try {
            return progressLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Read without the lock, as a hint: no send waits and no channel has a slot published at its
     * next ticket. A stale read can only defer work to the next full round, which also polls the
     * asynchronous mailbox and checks the peers.
     */
    private boolean nothingArrived() {
        if (pendingSendCount != 0 || !awaitingRelease.isEmpty()) {
            return false;
        }
        for (int source = 0; source < size; source++) {
            long ticket = nextPairArrival[source];
            long slot = layout.slotAddress(MailboxLayout.pairSlotsBase(layout.mailboxAddress(source, rank)), ticket, slots);
            if (device.getLongAcquire(slot + TICKET_OFFSET) == ticket) {
                return false;
            }
        }
        return true;
    }

    private boolean progressLocked() {
        if (closed) {
            return false;
        }
        boolean any = drainArrivals();
        if (!awaitingRelease.isEmpty()) {
            any |= reclaim();
        }
        any |= placePendingSends();
        if (log != null && log.retainsAny() && (progressCalls % RECLAIM_INTERVAL == 0 || logFullSince != 0)) {
            any |= reclaimLog();
        }
        if (!any && (++progressCalls % PEER_CHECK_INTERVAL == 0) && System.nanoTime() - lastPeerCheck > PEER_CHECK_NANOS) {
            lastPeerCheck = System.nanoTime();
            checkPeers();
        }
        return any;
    }

    /**
     * Reads the rank table and fails the requests that wait on a rank that has failed or finished.
     * A peer that says it runs but whose heartbeat has stood still for the lease is taken for dead:
     * a process killed with SIGKILL writes nothing more.
     */
    private void checkPeers() {
        boolean changed = false;
        long now = System.nanoTime();
        for (int peer = 0; peer < size; peer++) {
            if (peer == rank) {
                continue;
            }
            long entry = layout.rankEntry(peer);
            long state = device.getLongAcquire(entry + RankTableDescriptor.STATE_OFFSET);
            if (restartPolicy.restartOnFailure()) {
                long seen = device.getLongAcquire(entry + RankTableDescriptor.INCARNATION_OFFSET);
                if (seen > peerIncarnation[peer]) {
                    // A new incarnation attached: whatever its predecessor did, it is alive now.
                    peerIncarnation[peer] = seen;
                    peerDeclaredDead[peer] = false;
                    peerDeadSince[peer] = 0;
                    peerHeartbeatSeenAt[peer] = 0;
                }
            }
            if (state == RankTableDescriptor.STATE_RUNNING && (peerDeclaredDead[peer] || isSilentlyDead(peer, entry, now))) {
                peerDeclaredDead[peer] = true;
                state = RankTableDescriptor.STATE_FAILED;
            }
            if (state == RankTableDescriptor.STATE_FAILED && restartPolicy.restartOnFailure()) {
                // The launcher restarts it: wait for its next incarnation, bounded.
                if (peerDeadSince[peer] == 0) {
                    peerDeadSince[peer] = now;
                }
                if (now - peerDeadSince[peer] < restartPolicy.restartTimeout().toNanos()) {
                    state = RankTableDescriptor.STATE_RUNNING;
                }
            }
            if (state != peerState[peer]) {
                peerState[peer] = state;
                changed |= isGone(state);
            }
        }
        if (asyncMailboxes && (anyPeerGone || changed)) {
            skipAbandonedAsyncClaim(now);
        }
        if (changed) {
            anyPeerGone = true;
        } else {
            if (anyPeerGone) {
                // A request started after the change must not wait forever either.
                sweepRequestsOnGonePeers();
            }
            return;
        }
        // Whatever a peer published before it ended is visible now (its state was read with acquire).
        drainArrivals();
        sweepRequestsOnGonePeers();
    }

    /** Fails every request that waits on a peer that has failed or finished; none can ever complete. */
    private void sweepRequestsOnGonePeers() {
        // What the peer released before it ended is visible (its state was read with acquire):
        // a synchronous send it matched has completed, not failed.
        reclaim();
        List<MatchingEngine.PostedReceive> doomed = new ArrayList<>();
        for (MatchingEngine.PostedReceive posted : matching.postedReceives()) {
            Group group = ((ReceiveRequest.Posted) posted).request.group;
            if (posted.source() == Communicator.ANY_SOURCE ? everyPeerGone(group) : isGone(peerState[posted.source()])) {
                doomed.add(posted);
            }
        }
        for (MatchingEngine.PostedReceive posted : doomed) {
            matching.cancel(posted);
            ((ReceiveRequest.Posted) posted).request.failWith(peerGone(posted.source(), "receive from"));
        }
        for (int dest = 0; dest < size; dest++) {
            if (dest != rank && isGone(peerState[dest])) {
                for (SendRequest send : pendingSends[dest]) {
                    if (send.rendezvous != null) {
                        heap.release(send.rendezvous.block, send.rendezvous.blockLength); // the receiver never answers now
                        send.rendezvous = null;
                    }
                    send.failWith(peerGone(dest, "send to"));
                    pendingSendCount--;
                }
                pendingSends[dest].clear();
            }
        }
        for (Iterator<PlacedFragment> it = awaitingRelease.iterator(); it.hasNext(); ) {
            PlacedFragment placed = it.next();
            if (!isGone(peerState[placed.dest()])) {
                continue;
            }
            // A receiver that has ended will never read this payload: its heap block comes back now.
            it.remove();
            if (placed.heapOffset() != HeapAllocator.FAILED) {
                heap.release(placed.heapOffset(), placed.heapLength());
            }
            if (placed.completes() != null) {
                placed.completes().failWith(peerGone(placed.dest(), "synchronous send to"));
            }
        }
        for (int source = 0; source < size; source++) {
            Reassembly r = reassembly[source];
            if (r != null && isGone(peerState[source])) {
                // The rest of the message will never come.
                r.broken = true;
                if (r.receive != null) {
                    r.receive.failWith(peerGone(source, "receive of a fragmented message from"));
                }
                reassembly[source] = null;
            }
        }
    }

    /**
     * Checks whether the processes of the running peers on this host still exist. That is a few
     * reads of /proc per peer — up to milliseconds on a loaded host, measured as multi-millisecond
     * stalls of collectives when a rank's own wait did it — so a process's heartbeat thread calls
     * this, and the rank's progress only reads the result.
     */
    void checkPeerProcesses() {
        processesCheckedElsewhere = true;
        long self = ProcessHandle.current().pid();
        for (int peer = 0; peer < size; peer++) {
            long entry = layout.rankEntry(peer);
            if (peer == rank || processGone.get(peer) == 1
                    || device.getLongAcquire(entry + RankTableDescriptor.STATE_OFFSET) != RankTableDescriptor.STATE_RUNNING
                    || device.getLong(entry + RankTableDescriptor.HOST_OFFSET) != HostIdentity.CURRENT || HostIdentity.CURRENT == 0) {
                continue;
            }
            long pid = device.getLong(entry + RankTableDescriptor.PID_OFFSET);
            if (pid != self && !HostIdentity.isAlive(pid, device.getLong(entry + RankTableDescriptor.PROCESS_START_OFFSET))) {
                processGone.set(peer, 1);
            }
        }
    }

    /** A running peer that died without saying so: by process check on this host, by heartbeat lease elsewhere. */
    private boolean isSilentlyDead(int peer, long entry, long now) {
        long host = device.getLong(entry + RankTableDescriptor.HOST_OFFSET);
        if (host != 0 && host == HostIdentity.CURRENT) {
            if (processesCheckedElsewhere) {
                return processGone.get(peer) == 1;
            }
            if (now - peerProcessCheckedAt[peer] < PROCESS_CHECK_NANOS) {
                return false;
            }
            peerProcessCheckedAt[peer] = now;
            long pid = device.getLong(entry + RankTableDescriptor.PID_OFFSET);
            return pid != ProcessHandle.current().pid()
                    && !HostIdentity.isAlive(pid, device.getLong(entry + RankTableDescriptor.PROCESS_START_OFFSET));
        }
        long beat = device.getLongAcquire(entry + RankTableDescriptor.HEARTBEAT_OFFSET);
        if (beat != peerHeartbeat[peer] || peerHeartbeatSeenAt[peer] == 0) {
            peerHeartbeat[peer] = beat;
            peerHeartbeatSeenAt[peer] = now;
            return false;
        }
        return beat != 0 && now - peerHeartbeatSeenAt[peer] > HEARTBEAT_LEASE_NANOS;
    }

    private static boolean isGone(long state) {
        return state == RankTableDescriptor.STATE_FAILED || state == RankTableDescriptor.STATE_FINISHED;
    }

    /** Whether every member of {@code group} but this rank has failed or finished (no one is left to send). */
    private boolean everyPeerGone(Group group) {
        int members = 0;
        for (int i = 0; i < group.size(); i++) {
            int peer = group.worldRank(i);
            if (peer == rank) {
                continue;
            }
            members++;
            if (!isGone(peerState[peer])) {
                return false;
            }
        }
        return members > 0;
    }

    /**
     * Throws at once if an operation involves a peer already known to be gone. Receives call it
     * only after arrivals were drained and nothing matched, so no message that could still match is lost.
     */
    private void failIfPeerGone(int peer, Group group, String what) {
        if (peer == Communicator.ANY_SOURCE) {
            if (everyPeerGone(group)) {
                throw peerGone(Communicator.ANY_SOURCE, what);
            }
        } else if (peer != rank && peer >= 0 && isGone(peerState[peer])) {
            throw peerGone(peer, what);
        }
    }

    private ProcessFailedException peerGone(int peer, String what) {
        if (peer == Communicator.ANY_SOURCE) {
            return new ProcessFailedException(ErrorClass.PROC_FAILED_PENDING, -1, "rank " + rank + ": " + what
                    + " ANY_SOURCE cannot complete: every other rank has failed or finished");
        }
        boolean failed = peerState[peer] == RankTableDescriptor.STATE_FAILED;
        return new ProcessFailedException(ErrorClass.PROC_FAILED, peer, "rank " + rank + ": " + what + " rank " + peer
                + " cannot complete: rank " + peer + (failed ? " has failed" : " has finished its program"));
    }

    /** This rank's program has ended (normally or not); tells the others through the rank table. */
    void markEnded(boolean failed) {
        long entry = layout.rankEntry(rank);
        device.putLongRelease(entry + RankTableDescriptor.STATE_OFFSET,
                failed ? RankTableDescriptor.STATE_FAILED : RankTableDescriptor.STATE_FINISHED);
    }

    // ------------------------------------------------------------------ memory, lifecycle, statistics

    /** Device memory from this rank's heap partition ({@link DeviceBuffers}): receives into it may take a single copy. */
    MemorySegment allocate(long byteSize) {
        checkOpen();
        lock.lock();
        try {
            checkOpen();
            return deviceBuffers.allocate(byteSize, this::reclaim);
        } finally {
            lock.unlock();
        }
    }

    /** Like {@link #allocate}, but null instead of {@code NO_MEM} when the partition has no room. */
    MemorySegment tryAllocate(long byteSize) {
        try {
            return allocate(byteSize);
        } catch (LockstepException e) {
            if (e.errorClass() == ErrorClass.NO_MEM) {
                return null;
            }
            throw e;
        }
    }

    /** Where the first {@code bytes} bytes of {@code buffer} lie in the device if in one of this rank's buffers, else -1. */
    long deviceOffset(MemorySegment buffer, long bytes) {
        lock.lock();
        try {
            return deviceBuffers.deviceOffset(buffer, bytes);
        } finally {
            lock.unlock();
        }
    }

    void free(MemorySegment segment) {
        lock.lock();
        try {
            deviceBuffers.free(segment);
        } finally {
            lock.unlock();
        }
    }

    /** Closes the world communicator of this rank: pending requests fail, allocations are freed. */
    void close() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                failPendingRequests();
            }
        } finally {
            lock.unlock();
        }
        lock.lock();
        try {
            deviceBuffers.forgetAll();
        } finally {
            lock.unlock();
        }
        closeAction.run();
    }

    /** Requests still pending at close can never complete: they fail, so no thread waits on them forever. */
    private void failPendingRequests() {
        List<MatchingEngine.PostedReceive> posted = new ArrayList<>();
        matching.postedReceives().forEach(posted::add);
        for (MatchingEngine.PostedReceive receive : posted) {
            matching.cancel(receive);
            ((ReceiveRequest.Posted) receive).request.failWith(closedError("receive"));
        }
        for (ArrayDeque<SendRequest> queue : pendingSends) {
            queue.forEach(send -> send.failWith(closedError("send")));
            queue.clear();
        }
        pendingSendCount = 0;
        for (PlacedFragment placed : awaitingRelease) {
            if (placed.completes() != null) {
                placed.completes().failWith(closedError("synchronous send"));
            }
        }
        for (Reassembly r : reassembly) {
            if (r != null && r.receive != null) {
                r.receive.failWith(closedError("receive"));
            }
        }
    }

    private LockstepException closedError(String what) {
        return new LockstepException(ErrorClass.COMM, "rank " + rank + ": " + what + " pending when the communicator was closed");
    }

    /** What {@link #close()} does after closing the communicator (a process rank leaves its world). */
    void onClose(Runnable action) {
        this.closeAction = action;
    }

    /** Advances this rank's heartbeat word; called by the process's heartbeat thread. */
    void beat(long beat) {
        device.putLongRelease(layout.rankEntry(rank) + RankTableDescriptor.HEARTBEAT_OFFSET, beat);
    }

    private void checkOpen() {
        if (closed) {
            throw new LockstepException(ErrorClass.COMM, "communicator of rank " + rank + " is closed");
        }
    }

    /** Bytes of this rank's heap partition (log rings included) held by payloads not yet released by their receivers. */
    long heapBytesInUse() {
        lock.lock();
        try {
            reclaim();
            return heap.bytesInUse() + (log == null ? 0 : log.ringBytesInUse());
        } finally {
            lock.unlock();
        }
    }

    TransportStatistics statistics() {
        return statistics;
    }

    /** The single-copy settings of this rank (threshold, test hooks). */
    SingleCopy singleCopy() {
        return singleCopy;
    }


    MailboxLayout layout() {
        return layout;
    }

    /** The device, for tests that damage it on purpose. */
    ExternalMemory deviceForTests() {
        return device;
    }

    @Override
    public String toString() {
        return "MailboxEndpoint[rank " + rank + " of " + size + " on " + device.name() + "]";
    }
}
