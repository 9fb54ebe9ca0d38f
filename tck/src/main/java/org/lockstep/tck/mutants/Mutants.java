package org.lockstep.tck.mutants;

import java.util.List;
import java.util.function.Function;

import org.lockstep.api.Window;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.tck.ProviderProfile;

/**
 * The self-test's mutants: every required rule of the catalog is the designated killer of at
 * least one (the self-test checks that), and the first seven are the breakages the issue names.
 */
public final class Mutants {
    /** Indirect storage assumed when the provider declares none (as the rules assume). */
    private static final long ASSUMED_STORAGE = 16L << 20;
    private static final long ASSUMED_THRESHOLD = 4096;

    private Mutants() {
    }

    private static long threshold(Capabilities c) {
        return c.indirectionThreshold().orElse(ASSUMED_THRESHOLD);
    }

    /** A breakage of the mailbox transport's message log, switched on by its fault-injection property (the fault is named like the mutant). */
    private static Mutant mailboxFault(String fault, String breakage, List<String> killers) {
        return Mutant.providerFault(fault, breakage, killers,
                new Mutant.ProviderFault(ProviderProfile.MAILBOX, ProviderProfile.MAILBOX_FAULTS, fault));
    }

    /** A mutant of the windows a communicator makes: each window forwards to the real one but for what {@code broken} breaks. */
    private static Mutant windows(String id, String breakage, List<String> killers, Function<Window, Object> broken) {
        return Mutant.communicator(id, breakage, killers, real -> new WindowBreakages.BrokenWindows(real, broken));
    }

    public static List<Mutant> all() {
        return List.of(
                Mutant.communicator("DROP_MESSAGE", "loses the second message each rank sends to each destination",
                        List.of("PT2PT.25", "PT2PT.33", "MBX.03"), CommunicatorBreakages.DropMessage::new),
                Mutant.communicator("REORDER_TWO", "sends the second standard message to a destination after the third",
                        List.of("PT2PT.01", "PT2PT.30", "MBX.04", "LARGE.02"), CommunicatorBreakages.ReorderTwo::new),
                Mutant.communicator("DUPLICATE_ONE", "delivers the second standard message to each destination twice",
                        List.of("PT2PT.06", "MBX.02"), CommunicatorBreakages.DuplicateOne::new),
                Mutant.deviceUnderProvider("TWO_OWNERS", "the device's compare-and-set is a read and a later write, so two "
                        + "senders can claim one slot of the asynchronous mailbox", List.of("MBX.01"),
                        (real, caps) -> new DeviceBreakages.NonAtomicUpdates(real)),
                Mutant.deviceUnderProvider("CORRUPT_INDIRECTION_OFFSET", "payloads read through the indirection (reads longer "
                        + "than the threshold) start one cache line late", List.of("PT2PT.07", "LARGE.01", "LARGE.03", "LARGE.06"),
                        (real, caps) -> new DeviceBreakages.ShiftedIndirectReads(real, threshold(caps))),
                Mutant.communicator("NEVER_RECLAIMS_HEAP", "once a rank has sent its indirect storage's worth of large "
                        + "messages, its large sends never complete (the symptom of a transport that never reclaims)", true,
                        List.of("LARGE.04", "LARGE.05"), (real, caps) -> new CommunicatorBreakages.NeverReclaims(real,
                                threshold(caps), caps.indirectBytesPerRank().orElse(ASSUMED_STORAGE))),
                Mutant.communicator("WRONG_STATUS_SOURCE", "ANY_SOURCE receives and probes report the next rank as the source",
                        List.of("PT2PT.04", "LARGE.08"), CommunicatorBreakages.WrongStatusSource::new),
                Mutant.communicator("WRONG_STATUS_TAG", "ANY_TAG receives and probes report tag 0",
                        List.of("PT2PT.02", "PT2PT.05"), CommunicatorBreakages.WrongStatusTag::new),
                Mutant.communicator("LATER_POSTED_WINS", "every second irecv is posted only after the next one",
                        List.of("PT2PT.03"), CommunicatorBreakages.LaterPostedWins::new),
                Mutant.communicator("OVERWRITES_PAST_MESSAGE", "a receive changes the byte after the message it delivered",
                        List.of("PT2PT.08"), CommunicatorBreakages.OverwritesPastMessage::new),
                Mutant.communicator("PROBE_CONSUMES", "a probe that finds a message receives it",
                        List.of("PT2PT.09"), CommunicatorBreakages.ProbeConsumes::new),
                Mutant.communicator("PROBE_NEVER_WAKES", "a blocking probe sees only messages there when it starts (lost wake-up)",
                        List.of("PT2PT.10"), CommunicatorBreakages.ProbeNeverWakes::new),
                Mutant.communicator("TAG_IGNORED", "receives and probes ignore the tag they ask for",
                        List.of("PT2PT.11", "PT2PT.24"), CommunicatorBreakages.TagIgnored::new),
                Mutant.communicator("BYTE_COUNT_OFF", "statuses report the receive buffer's capacity as the byte count",
                        List.of("PT2PT.12"), CommunicatorBreakages.ByteCountOff::new),
                Mutant.communicator("TRUNCATION_IGNORED", "truncated receives complete without the TRUNCATE error",
                        List.of("PT2PT.13", "PT2PT.14"), CommunicatorBreakages.TruncationIgnored::new),
                Mutant.communicator("SSEND_AS_SEND", "synchronous sends complete like standard ones",
                        List.of("PT2PT.15", "PT2PT.16", "LARGE.07"), CommunicatorBreakages.SsendAsSend::new),
                Mutant.communicator("PROC_NULL_AS_ANY_SOURCE", "receives and probes from PROC_NULL are taken as ANY_SOURCE",
                        List.of("PT2PT.17", "PT2PT.18"), CommunicatorBreakages.ProcNullAsAnySource::new),
                Mutant.communicator("STATUS_ONCE", "a completed receive request gives its status once; later calls get an empty one",
                        List.of("PT2PT.19"), real -> new CommunicatorBreakages.BrokenReceiveRequests(real,
                                (r, made) -> new RequestBreakages.StatusOnce(r))),
                Mutant.communicator("TEST_REPORTS_EARLY", "the first test() of a receive reports completion whether or not it completed",
                        List.of("PT2PT.20"), real -> new CommunicatorBreakages.BrokenReceiveRequests(real,
                                (r, made) -> new RequestBreakages.TestReportsEarly(r, made))),
                Mutant.communicator("CANCEL_IGNORED", "cancel() of a receive does nothing",
                        List.of("PT2PT.21"), real -> new CommunicatorBreakages.BrokenReceiveRequests(real,
                                (r, made) -> new RequestBreakages.IgnoreCancel(r))),
                Mutant.communicator("CANCEL_OVERRIDES_COMPLETION", "cancel() of a completed receive makes its status cancelled",
                        List.of("PT2PT.22"), real -> new CommunicatorBreakages.BrokenReceiveRequests(real,
                                (r, made) -> new RequestBreakages.CancelOverridesCompletion(r))),
                Mutant.communicator("WRONG_ERROR_CLASS", "argument errors all come out as ARG",
                        List.of("PT2PT.23"), CommunicatorBreakages.WrongErrorClass::new),
                Mutant.communicator("CLOSE_IGNORED", "close() leaves the communicator usable",
                        List.of("PT2PT.26"), CommunicatorBreakages.CloseIgnored::new),
                Mutant.communicator("TAG_TRUNCATED", "tags are cut to 16 bits when sent",
                        List.of("PT2PT.27"), CommunicatorBreakages.TagTruncated::new),
                Mutant.communicator("ENDIAN_SWAP", "elements wider than a byte are sent byte-reversed",
                        List.of("PT2PT.28"), CommunicatorBreakages.EndianSwap::new),
                Mutant.communicator("SHORT_ALLOCATION", "allocate hands out one byte less than asked for",
                        List.of("PT2PT.29"), CommunicatorBreakages.ShortAllocation::new),
                Mutant.communicator("BLOCKING_ISEND", "isend blocks while more than 8 of its sends are pending",
                        List.of("MBX.05"), CommunicatorBreakages.BlockingIsend::new),
                Mutant.communicator("BARRIER_RETURNS_EARLY", "the last rank's barrier returns without waiting for the others",
                        List.of("COLL.01"), CommunicatorBreakages.BarrierReturnsEarly::new),
                Mutant.communicator("BCAST_SKIPS_ONE_RANK", "a broadcast leaves the rank after the root with its old buffer",
                        List.of("COLL.02"), CommunicatorBreakages.BcastSkipsOneRank::new),
                Mutant.communicator("REDUCTION_WRONG_ORDER", "non-commutative reductions combine inout op in instead of in op inout",
                        List.of("COLL.03"), CommunicatorBreakages.ReductionWrongOrder::new),
                Mutant.communicator("ALLREDUCE_NOT_BIT_IDENTICAL", "the last rank's allreduce of doubles differs in the lowest bit",
                        List.of("COLL.04"), CommunicatorBreakages.AllreduceNotBitIdentical::new),
                Mutant.communicator("SPLIT_MIXES_CONTEXTS", "communicators from split send and receive in their parent's context",
                        List.of("COLL.05"), CommunicatorBreakages.SplitMixesContexts::new),
                Mutant.communicator("ALLTOALL_BLOCKS_SWAPPED", "rank 0's alltoall delivers its first two blocks swapped",
                        List.of("COLL.06"), CommunicatorBreakages.AlltoallBlocksSwapped::new),
                Mutant.communicator("TYPE_IGNORES_STRIDE", "point-to-point sends and receives a derived type's elements as if"
                        + " they were packed, ignoring the gaps and strides of its type map", List.of("TYPE.01"), DatatypeBreakages.IgnoresStride::new),
                Mutant.communicator("TYPE_PARTIAL_COUNTS_AS_WHOLE", "the status of a derived-type receive counts a partly received last"
                        + " element as whole", List.of("TYPE.02"), DatatypeBreakages.PartialCountsAsWhole::new),
                Mutant.communicator("COLLECTIVE_IGNORES_STRIDE", "bcast, allgather, alltoall and allreduce move a derived type's elements"
                        + " as packed bytes, ignoring its type map", List.of("TYPE.03"), DatatypeBreakages.CollectivesIgnoreStride::new),
                Mutant.communicator("ACCEPTS_UNCOMMITTED", "an uncommitted datatype is committed on first use instead of being rejected",
                        List.of("TYPE.04"), DatatypeBreakages.AcceptsUncommitted::new),
                Mutant.communicator("PERSISTENT_SEND_READS_AT_INIT", "a persistent send reads its buffer when it is made, not at each"
                        + " start", List.of("PT2PT.34"), ApiBreakages.PersistentSendCopiesAtInit::new),
                Mutant.communicator("MPROBE_LEAVES_MESSAGE", "a matched probe only probes: the message stays in matching until mrecv",
                        List.of("PT2PT.35"), ApiBreakages.MprobeLeavesMessage::new),
                Mutant.communicator("BSEND_WITHOUT_BUFFER", "buffered sends ignore the attached buffer (standard sends, with or without one)",
                        List.of("PT2PT.36"), ApiBreakages.BsendWithoutBuffer::new),
                Mutant.communicator("REPLACE_IGNORES_GAPS", "sendrecv_replace treats the buffer as packed bytes, ignoring the datatype's gaps",
                        List.of("PT2PT.37"), ApiBreakages.ReplaceIgnoresGaps::new),
                Mutant.communicator("PARTITIONS_READ_AT_START", "a partitioned send takes its parts' contents at start, not at pready",
                        List.of("PT2PT.38"), ApiBreakages.PartitionsReadAtStart::new),
                Mutant.communicator("PERSISTENT_SSEND_AS_SEND", "a persistent synchronous send completes like a persistent standard one",
                        List.of("PT2PT.39"), ApiBreakages.PersistentSsendAsSend::new),
                Mutant.communicator("GATHERV_IGNORES_DISPLACEMENTS", "gatherv puts the blocks one after the other, ignoring the displacements",
                        List.of("COLL.08"), ApiBreakages.GathervIgnoresDisplacements::new),
                Mutant.communicator("EXSCAN_INCLUSIVE", "exscan includes the rank's own contribution (it is scan)",
                        List.of("COLL.09"), ApiBreakages.ExscanInclusive::new),
                Mutant.communicator("IGATHER_NEVER_RUNS", "igather returns a completed request and gathers nothing",
                        List.of("COLL.10"), ApiBreakages.IgatherNeverRuns::new),
                Mutant.communicator("PERSISTENT_ALLREDUCE_RUNS_ONCE", "a persistent allreduce runs at its first start only",
                        List.of("COLL.11"), ApiBreakages.PersistentAllreduceRunsOnce::new),
                Mutant.communicator("PERSISTENT_ALLTOALLW_RUNS_ONCE", "a persistent alltoallw runs at its first start only",
                        List.of("COLL.13"), ApiBreakages.PersistentAlltoallwRunsOnce::new),
                Mutant.communicator("DUP_SHARES_CONTEXT", "dup and idup return communicators on the parent's context",
                        List.of("COMM.01"), ApiBreakages.DupSharesContext::new),
                Mutant.communicator("SPLIT_TYPE_IGNORES_KEY", "splitType orders each part by rank, ignoring the keys",
                        List.of("COMM.11"), ApiBreakages.SplitTypeIgnoresKey::new),
                Mutant.communicator("GROUP_OF_WRONG_ORDER", "group() lists the members in reverse order",
                        List.of("COMM.02", "COMM.03"), ApiBreakages.GroupReversed::new),
                Mutant.communicator("MERGE_IGNORES_HIGH", "an intercommunicator's merge puts the groups in the same order whatever"
                        + " high they pass", List.of("COMM.04"),
                        real -> new ApiBreakages.BrokenIntercommunicators(real, ApiBreakages.MergeIgnoresHigh::new)),
                Mutant.communicator("INTERCOMM_GATHERV_PACKS_BLOCKS", "an intercommunicator's gatherv lays the remote ranks' blocks"
                        + " one after the other, ignoring the displacements", List.of("COMM.08"),
                        real -> new ApiBreakages.BrokenIntercommunicators(real, ApiBreakages.IntercommGathervPacks::new)),
                Mutant.communicator("INTERCOMM_IALLTOALL_SENDS_BLOCK_0", "an intercommunicator's ialltoall sends every remote rank"
                        + " the block meant for remote rank 0", List.of("COMM.10"),
                        real -> new ApiBreakages.BrokenIntercommunicators(real, ApiBreakages.IntercommIalltoallSendsBlock0::new)),
                Mutant.communicator("PREDEFINED_ATTRIBUTES_UNANSWERED", "communicators answer no predefined attribute (TAG_UB, HOST,"
                        + " IO, WTIME_IS_GLOBAL, …): attribute gives empty for them", List.of("COMM.09"),
                        ApiBreakages.PredefinedUnanswered::new),
                Mutant.communicator("DUP_DROPS_ATTRIBUTES", "dup and idup give communicators without the attributes the keys' copiers"
                        + " give", List.of("COMM.05"), ApiBreakages.DupDropsAttributes::new),
                Mutant.communicator("DUP_DROPS_HINTS", "dup gives communicators without the parent's hints",
                        List.of("COMM.06"), ApiBreakages.DupDropsHints::new),
                Mutant.communicator("ERROR_HANDLER_IGNORED", "setErrorHandler is remembered but errors never reach the handler",
                        List.of("COMM.07"), ApiBreakages.ErrorHandlerIgnored::new),
                Mutant.communicator("COORDS_COLUMN_MAJOR", "a Cartesian grid's coords(rank) number the ranks column-major",
                        List.of("TOPO.01"), real -> new TopologyBreakages.BrokenGrids(real, TopologyBreakages.ColumnMajorCoords::new)),
                Mutant.communicator("SHIFT_SWAPPED", "shift names the destination as the source and the source as the destination",
                        List.of("TOPO.02"), real -> new TopologyBreakages.BrokenGrids(real, TopologyBreakages.ShiftSwapped::new)),
                Mutant.communicator("SUB_INVERTED", "sub keeps the dimensions it is asked to drop and drops the others",
                        List.of("TOPO.03"), real -> new TopologyBreakages.BrokenGrids(real, TopologyBreakages.SubInverted::new)),
                Mutant.communicator("GRAPH_SOURCES_REVERSED", "a distributed graph lists its sources in reverse order",
                        List.of("TOPO.04"), TopologyBreakages.GraphSourcesReversed::new),
                Mutant.communicator("NEIGHBOR_WITHOUT_TOPOLOGY_ACCEPTED", "neighborAllgather on a communicator without topology"
                        + " returns without an error, having done nothing", List.of("TOPO.05"),
                        TopologyBreakages.AllgatherWithoutTopologyAccepted::new),
                Mutant.communicator("NEIGHBOR_BLOCKS_UNSWAPPED", "neighborAlltoall on a grid puts each dimension's negative"
                        + " neighbour's block where the positive one's belongs and vice versa", List.of("TOPO.06"),
                        real -> new TopologyBreakages.BrokenGrids(real, TopologyBreakages.AlltoallBlocksUnswapped::new)),
                Mutant.communicator("INEIGHBOR_ALLTOALL_NEVER_RUNS", "ineighborAlltoall on a grid returns a completed request and"
                        + " exchanges nothing", List.of("TOPO.07"),
                        real -> new TopologyBreakages.BrokenGrids(real, TopologyBreakages.IneighborAlltoallNeverRuns::new)),
                windows("PUTS_ONE_EPOCH_LATE", "the closing call of an epoch (fence, complete) does not complete its puts: they"
                        + " reach the target in the origin's next epoch", List.of("RMA.01", "RMA.02"), WindowBreakages.PutsOneEpochLate::new),
                windows("LOCK_NOT_EXCLUSIVE", "an exclusive lock is taken as a shared one", List.of("RMA.03"),
                        WindowBreakages.LockNotExclusive::new),
                windows("FLUSH_IS_LOCAL", "flush and flushAll complete nothing: a lock epoch's puts leave the origin at unlock",
                        List.of("RMA.04"), WindowBreakages.FlushIsLocal::new),
                windows("FLUSH_ALL_OF_EVERY_RANK", "flushAll and flushLocalAll flush every rank of the window, so holding a lock"
                        + " on some ranks only they fail with RMA_SYNC", List.of("RMA.11"), WindowBreakages.FlushAllOfEveryRank::new),
                windows("RGET_COMPLETES_EARLY", "rget returns a request that is already complete and fetches the data only at"
                        + " the next flush or unlock", List.of("RMA.12"), WindowBreakages.RgetCompletesEarly::new),
                windows("FENCE_ASSERTIONS_IGNORED", "a fence drops its assertions: NOCHECK is no error and NOSUCCEED leaves an"
                        + " epoch open", List.of("RMA.13"), WindowBreakages.FenceAssertionsIgnored::new),
                windows("TARGET_LAYOUT_IGNORED", "put, get and accumulate lay out the target as the origin, ignoring the target's"
                        + " own count and type", List.of("RMA.14"), WindowBreakages.TargetLayoutIgnored::new),
                windows("ACCUMULATE_NOT_ATOMIC", "accumulate, getAccumulate, fetchAndOp and compareAndSwap are a get and a later put, so a"
                        + " concurrent update is lost", List.of("RMA.05", "RMA.06"), WindowBreakages.AccumulateNotAtomic::new),
                windows("SHARED_QUERY_OWN_PART", "sharedQuery gives the caller's own part whatever rank it names", List.of("RMA.07"),
                        WindowBreakages.SharedQueryOwnPart::new),
                windows("DERIVED_TYPE_PACKED", "a put of a derived datatype writes its packed bytes one after another at the"
                        + " target, closing the gaps the type leaves", List.of("RMA.10"), WindowBreakages.DerivedTypePacked::new),
                windows("RANGE_UNCHECKED", "an access outside the target's part is dropped silently, not an RMA_RANGE error",
                        List.of("RMA.08"), WindowBreakages.RangeUnchecked::new),
                Mutant.communicator("CHECKPOINT_IGNORES_PENDING", "checkpoint() with a pending request succeeds instead of failing with PENDING",
                        List.of("CKPT.01"), CheckpointBreakages.PendingIgnored::new),
                mailboxFault("FREES_ON_RECEIPT", "the transport releases a logged message as soon as its receiver has consumed it, "
                        + "despite checkpointing (as if the receiver's checkpoint covered it), so a restarted receiver cannot get again "
                        + "what it consumed after its checkpoint", List.of("CKPT.02")),
                mailboxFault("DIRECT_FOLD_REVERSED", "the direct allreduce (over buffers read in place) folds each segment in the "
                        + "reverse rank order", List.of("COLL.07")),
                mailboxFault("SHARED_BCAST_SKIPS_LAST_PIECE", "the shared broadcast of a large message leaves out its last piece",
                        List.of("COLL.07")),
                mailboxFault("BCAST_READS_UNPUBLISHED", "the broadcast written once through the root's data area (ibcast's on the"
                        + " device too) reads the root's chunks without waiting for the root to publish them", List.of("COLL.12")),
                mailboxFault("REPLAYS_OUT_OF_ORDER", "at recovery, the first two messages of each channel's replay from the log take "
                        + "each other's place", List.of("CKPT.03")),
                mailboxFault("FORGETS_WILDCARD_ORDER", "a restarted rank's ANY_SOURCE receives ignore the matching order logged in the "
                        + "device and match whatever is there first", List.of("CKPT.04")),
                Mutant.deviceUnderProvider("PERSISTS_AFTER_PUBLISHING", "a persist makes the first line of its range durable at once "
                        + "and the rest only after the next persist, so a message is named (published) before its payload is durable",
                        List.of("CKPT.05"), (real, caps) -> new CheckpointBreakages.PersistsAfterPublishing(real)),
                Mutant.device("DEVICE_UNCHECKED_BOUNDS", "accesses past the end are clipped or dropped, not rejected",
                        List.of("DEV.01"), DeviceBreakages.UncheckedBounds::new),
                Mutant.device("DEVICE_UNCHECKED_ALIGNMENT", "misaligned ordered and atomic accesses are rounded down, not rejected",
                        List.of("DEV.02"), DeviceBreakages.UncheckedAlignment::new),
                Mutant.device("DEVICE_NON_ATOMIC", "compare-and-set and get-and-add are a read and a later write",
                        List.of("DEV.03"), DeviceBreakages.NonAtomicUpdates::new),
                Mutant.device("DEVICE_HIDES_ATOMICS", "atomics work but ATOMIC_CAS is not declared",
                        List.of("DEV.04"), DeviceBreakages.HiddenAtomics::new),
                Mutant.device("DEVICE_LATE_WRITES", "plain writes reach the device only after the next release store",
                        List.of("DEV.05"), DeviceBreakages.LateWrites::new),
                Mutant.device("DEVICE_WRITE_SPILLS", "a write also clears the byte after its range",
                        List.of("DEV.06"), DeviceBreakages.WriteSpills::new),
                Mutant.device("DEVICE_PERSIST_CORRUPTS", "persist writes a stale byte back",
                        List.of("DEV.07"), DeviceBreakages.PersistCorrupts::new),
                Mutant.device("DEVICE_PERSIST_IGNORED", "persist makes nothing durable",
                        List.of("DEV.08"), DeviceBreakages.PersistIgnored::new),
                Mutant.device("DEVICE_CLOSE_IGNORED", "close leaves the device usable",
                        List.of("DEV.09"), DeviceBreakages.CloseIgnored::new),
                Mutant.device("DEVICE_CAPACITY_OVERSTATED", "the device claims a block more than it has",
                        List.of("DEV.10"), DeviceBreakages.CapacityOverstated::new),
                Mutant.communicator("EXSCAN_INCLUSIVE", "exscan folds each rank's own value in (an inclusive scan)",
                        List.of("EMBSP.01"), ExternalMemoryBreakages.ExscanInclusive::new),
                embspFault("SWAPS_TWICE", "every swap-out writes the context twice, so the counted I/O exceeds the thesis's bound",
                        List.of("EMBSP.02")),
                embspFault("KEEPS_CONTEXTS_IN_MEMORY", "the I/O driver keeps what it is asked to write in heap memory and never writes "
                        + "the disks, counting the I/O as if it had (every result is right)", List.of("EMBSP.03")));
    }

    /** A breakage of the EM-BSP simulator, switched on by its fault-injection property (the fault is named like the mutant). */
    private static Mutant embspFault(String fault, String breakage, List<String> killers) {
        return Mutant.providerFault(fault, breakage, killers,
                new Mutant.ProviderFault(ProviderProfile.EMBSP, ProviderProfile.EMBSP_FAULTS, fault));
    }

    /**
     * The mutants to run against a target that declares {@code capabilities}: those whose designated
     * killers all need {@link Capability#EXTERNAL_MEMORY} break an external-memory provider and run
     * only against one that declares it.
     */
    public static List<Mutant> applicableTo(Capabilities capabilities) {
        return all().stream().filter(m -> capabilities.has(Capability.EXTERNAL_MEMORY) || !breaksExternalMemory(m)).toList();
    }

    /** Whether every designated killer of {@code m} needs {@link Capability#EXTERNAL_MEMORY}. */
    public static boolean breaksExternalMemory(Mutant m) {
        return m.killers().stream().allMatch(id -> RuleCatalog.rule(id).needs().contains(Capability.EXTERNAL_MEMORY));
    }

}
