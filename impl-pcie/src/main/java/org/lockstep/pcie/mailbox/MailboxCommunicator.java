package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.pcie.collective.DeviceCollectives;
import org.lockstep.pcie.window.DeviceWindows;
import org.lockstep.spi.collective.AbstractCommunicator;
import org.lockstep.spi.collective.CollectiveEngine;
import org.lockstep.spi.window.WindowFactory;
import org.lockstep.spi.messaging.ConstructingRequest;
import org.lockstep.spi.messaging.PeerLiveness;

/**
 * A communicator of the mailbox transport: a group of world ranks and two context ids — one for
 * point-to-point, the next for collectives — over this rank's {@link MailboxEndpoint}. Messages
 * on different contexts never match each other, wildcards or not.
 */
final class MailboxCommunicator extends AbstractCommunicator implements PeerLiveness {
    /**
     * Tag of the context agreement of {@link #dup} and {@link #split} on the parent's collective
     * channel: below 2^30, the range the default collective algorithms keep free.
     */
    private static final int AGREEMENT_TAG = (1 << 30) - 1;
    private static final int AGREEMENT_FIELDS = 3;
    /** The tags of createGroup's agreements on the collective channel: 2^29 and up, below {@link #AGREEMENT_TAG}. */
    private static final int CREATE_GROUP_TAGS = 1 << 29;

    private final MailboxEndpoint endpoint;
    /** The endpoint's communicator-facing operations (point-to-point, device buffers, contexts). */
    private final EndpointOperations operations;
    private final Group group;
    private final int context;
    private final int rank;
    private final boolean isWorld;
    private final boolean isChannel;
    private MailboxCommunicator channel;
    private DeviceCollectives collectives;

    private MailboxCommunicator(MailboxEndpoint endpoint, Group group, int context, boolean isWorld, boolean isChannel) {
        this.endpoint = endpoint;
        this.operations = endpoint.operations();
        this.group = group;
        this.context = context;
        this.rank = group.rankOf(endpoint.rank());
        this.isWorld = isWorld;
        this.isChannel = isChannel;
    }

    /** The world communicator of {@code endpoint}'s rank. */
    static MailboxCommunicator world(MailboxEndpoint endpoint) {
        return new MailboxCommunicator(endpoint, Group.world(endpoint.size()), EndpointOperations.WORLD_CONTEXT, true, false);
    }

    MailboxEndpoint endpoint() {
        return endpoint;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return group.size();
    }

    // ---- point-to-point (arguments checked, PROC_NULL and datatypes handled by AbstractCommunicator)

    @Override
    protected Request implSend(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        return operations.startSend(data, bytes, group.worldRank(dest), tag, context, synchronous, dest);
    }

    /** A blocking send: one that travels in place and finds room needs no request. */
    @Override
    protected void implSendBlocking(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        operations.send(data, bytes, group.worldRank(dest), tag, context, synchronous, dest);
    }

    @Override
    protected Request implReceive(MemorySegment buffer, long capacity, int source, int tag) {
        return operations.startReceive(buffer, capacity, group.worldRank(source), tag, context, group);
    }

    @Override
    protected Status implProbe(int source, int tag) {
        return operations.probe(group.worldRank(source), tag, context, group);
    }

    @Override
    protected Optional<Status> implIprobe(int source, int tag) {
        return operations.iprobe(group.worldRank(source), tag, context, group);
    }

    @Override
    public void failIfGone(int rank) {
        checkOpen();
        if (rank != this.rank) {
            operations.failIfGone(group.worldRank(rank), group, "wait for a message from");
        }
    }

    // ---- communicators

    @Override
    protected Communicator collectiveChannel() {
        checkOpen();
        if (isChannel) {
            return this;
        }
        if (channel == null) {
            channel = new MailboxCommunicator(endpoint, group, context + 1, false, true);
        }
        return channel;
    }

    /** Device-native collectives where they win (by measured crossovers), the point-to-point ones elsewhere. */
    @Override
    protected CollectiveEngine collectiveEngine() {
        if (collectives == null) {
            collectives = new DeviceCollectives(new MailboxCollectiveSite(endpoint, group, rank, context),
                    endpoint.collectiveSettings().usesDevice());
        }
        return collectives;
    }

    @Override
    protected Communicator implDup() {
        int[] agreed = agree(0, 0);
        return new MailboxCommunicator(endpoint, group, agreed[0], false, false);
    }

    @Override
    protected Communicator implSplit(int color, int key) {
        int[] agreed = agree(color, key);
        if (color == UNDEFINED) {
            return null;
        }
        int[] members = Arrays.copyOfRange(agreed, 1, agreed.length);
        return new MailboxCommunicator(endpoint, Group.of(members, endpoint.size()), agreed[0], false, false);
    }

    @Override
    protected int implWorldRank(int r) {
        return group.worldRank(r);
    }

    /**
     * Non-blocking dup: every rank's next free context goes round by an iallgather on the collective
     * channel; the largest is the new context. Each rank reserves its own proposal at once, so a
     * construction started before this one completes proposes (and agrees on) a larger context.
     */
    @Override
    protected CommunicatorRequest implIdup() {
        int n = size();
        int[] proposals = new int[n];
        int mine = operations.nextFreeContext();
        operations.reserveContextsBelow(mine + 2);
        Request agreement = collectiveChannel().iallgather(MemorySegment.ofArray(new int[] {mine}), 1, Datatype.INT,
                MemorySegment.ofArray(proposals));
        return new ConstructingRequest(agreement, () -> {
            int context = java.util.Arrays.stream(proposals).max().orElseThrow();
            operations.reserveContextsBelow(context + 2);
            return new MailboxCommunicator(endpoint, group, context, false, false);
        });
    }

    /**
     * Only the members agree, over this communicator's collective channel on a tag of their own
     * (below the range of the collective algorithms and of {@link #AGREEMENT_TAG}): the first member
     * takes the largest next free context of them all and tells the others.
     */
    @Override
    protected Communicator implCreateGroup(int[] ranks, int tag) {
        Communicator c = collectiveChannel();
        int channelTag = CREATE_GROUP_TAGS | (tag & (CREATE_GROUP_TAGS - 1));
        int[] context = {operations.nextFreeContext()};
        if (ranks[0] == rank) {
            int[] other = new int[1];
            for (int i = 1; i < ranks.length; i++) {
                c.recv(other, ranks[i], channelTag);
                context[0] = Math.max(context[0], other[0]);
            }
            for (int i = 1; i < ranks.length; i++) {
                c.send(context, ranks[i], channelTag);
            }
        } else {
            c.send(context, ranks[0], channelTag);
            c.recv(context, ranks[0], channelTag);
        }
        operations.reserveContextsBelow(context[0] + 2);
        int[] members = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            members[i] = group.worldRank(ranks[i]);
        }
        return new MailboxCommunicator(endpoint, Group.of(members, endpoint.size()), context[0], false, false);
    }

    /** This rank's next free context, reserved with the one after it (a communicator takes two). */
    @Override
    protected long implSpanningProposal() {
        int mine = operations.nextFreeContext();
        operations.reserveContextsBelow(mine + 2);
        return mine;
    }

    @Override
    protected Communicator implSpanning(int[] worldRanks, long agreed) {
        int agreedContext = Math.toIntExact(agreed);
        operations.reserveContextsBelow(agreedContext + 2);
        return new MailboxCommunicator(endpoint, Group.of(worldRanks, endpoint.size()), agreedContext, false, false);
    }

    /**
     * Agrees with the other ranks of this communicator on a context id free at all of them and on
     * the members of this rank's new group: every rank sends (color, key, its next free context)
     * to rank 0 over the collective channel, and rank 0 answers each with the context and the
     * world ranks of its color, ordered by key, then by rank here.
     *
     * @return the context, followed by the new group's world ranks (none for {@link #UNDEFINED})
     */
    private int[] agree(int color, int key) {
        Communicator c = collectiveChannel();
        int n = size();
        int[] mine = {color, key, operations.nextFreeContext()};
        int[] answer;
        if (rank == 0) {
            int[][] all = new int[n][];
            all[0] = mine;
            for (int r = 1; r < n; r++) {
                all[r] = new int[AGREEMENT_FIELDS];
                c.recv(all[r], r, AGREEMENT_TAG);
            }
            int contextId = Arrays.stream(all).mapToInt(a -> a[2]).max().orElseThrow();
            answer = null;
            for (int r = n - 1; r >= 0; r--) {
                int rankColor = all[r][0];
                int[] reply;
                if (rankColor == UNDEFINED) {
                    reply = new int[] {contextId};
                } else {
                    Integer[] sameColor = java.util.stream.IntStream.range(0, n).filter(i -> all[i][0] == rankColor)
                            .boxed().sorted(Comparator.<Integer>comparingInt(i -> all[i][1]).thenComparingInt(i -> i))
                            .toArray(Integer[]::new);
                    reply = new int[1 + sameColor.length];
                    reply[0] = contextId;
                    for (int i = 0; i < sameColor.length; i++) {
                        reply[1 + i] = group.worldRank(sameColor[i]);
                    }
                }
                if (r == 0) {
                    answer = reply;
                } else {
                    c.send(new int[] {reply.length}, r, AGREEMENT_TAG);
                    c.send(reply, r, AGREEMENT_TAG);
                }
            }
        } else {
            c.send(mine, 0, AGREEMENT_TAG);
            int[] length = new int[1];
            c.recv(length, 0, AGREEMENT_TAG);
            answer = new int[length[0]];
            c.recv(answer, 0, AGREEMENT_TAG);
        }
        operations.reserveContextsBelow(answer[0] + 2);
        return answer;
    }

    // ---- memory and lifecycle

    @Override
    public org.lockstep.api.Checkpoints checkpoints() {
        return endpoint.checkpoints();
    }

    @Override
    protected MemorySegment implAllocate(long byteSize) {
        return operations.allocate(byteSize);
    }

    @Override
    protected void implFree(MemorySegment segment) {
        operations.free(segment);
    }

    /** Windows in device memory: one-sided accesses are copies on the device ({@link DeviceWindows}). */
    @Override
    protected WindowFactory implWindows() {
        return new DeviceWindows(endpoint.device(), endpoint.progressEngine()::newIdleStrategy);
    }

    /** Closing the world communicator ends this rank's use of the transport; closing another frees only it. */
    @Override
    protected void implClose() {
        if (isWorld) {
            endpoint.lifecycle().close();
        }
    }

    /** The job's world: no dynamic processes here ({@code MPI_UNIVERSE_SIZE}). */
    @Override
    protected int implUniverseSize() {
        return endpoint.size();
    }

    @Override
    public String toString() {
        return "MailboxCommunicator[rank " + rank + " of " + size() + ", context " + context + ", world ranks " + group + "]";
    }
}
