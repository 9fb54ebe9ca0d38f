package org.lockstep.conformance.verification;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleExecutor;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.conformance.RunSettings;

/**
 * The verification of a messaging provider, in the style of the Reactive Streams TCK: subclass it
 * in your provider's test sources, say how to get the provider and what it declares, and run it
 * with JUnit Jupiter. Each test method is one rule of the {@link RuleCatalog}; its name carries the
 * rule's level, id and name ({@code required_PT2PT_01_nonOvertaking}). A rule whose capability the
 * provider does not declare is reported as aborted (skipped) with the reason.
 *
 * <pre>{@code
 * class MyProviderVerificationTest extends MessagingProviderVerification {
 *     protected LockstepProvider provider() { return new MyProvider(); }
 *     protected Capabilities capabilities() { return Capabilities.of(8).withIndirectionThreshold(4096); }
 * }
 * }</pre>
 *
 * <p>The seed, tries and rank counts come from {@link #settings()}: by default the quick settings
 * with the seed of the system property {@value #SEED_PROPERTY} (a fixed one if unset), so that a
 * failure printed with its seed replays.
 */
public abstract class MessagingProviderVerification {
    /** System property with the seed of generated scenarios. */
    public static final String SEED_PROPERTY = "lockstep.tck.seed";
    /** The seed used when {@value #SEED_PROPERTY} is not set. */
    public static final long DEFAULT_SEED = 20_250_101L;

    private MessagingTarget target;

    /** The provider under test. */
    protected abstract LockstepProvider provider();

    /** What the provider declares. */
    protected abstract Capabilities capabilities();

    /** The job options of a world of {@code ranks} ranks (device, thresholds, ...). */
    protected JobOptions jobOptions(int ranks) {
        return JobOptions.ofRanks(ranks);
    }

    /** How hard to try; override for longer runs. */
    protected RunSettings settings() {
        return RunSettings.quick(Long.getLong(SEED_PROPERTY, DEFAULT_SEED));
    }

    /** The target the rules run against; built once from the methods above. */
    protected MessagingTarget target() {
        if (target == null) {
            LockstepProvider p = provider();
            target = new MessagingTarget(p.name(), p, capabilities(), this::jobOptions);
        }
        return target;
    }

    /** Runs the rule {@code id} and turns its outcome into a pass, an abort (skip) or a failure. */
    protected final void verify(String id) {
        report(RuleExecutor.run(RuleCatalog.rule(id), target(), settings()));
    }

    static void report(RuleOutcome outcome) {
        switch (outcome.verdict()) {
            case PASSED -> {
                // the rule held
            }
            case SKIPPED -> Assumptions.abort(outcome.rule().id() + " skipped: " + outcome.message());
            case FAILED -> throw new org.lockstep.conformance.RuleViolation(outcome.rule().id() + " " + outcome.rule().name()
                    + ": " + outcome.message() + (outcome.seed().isPresent() ? " [seed " + outcome.seed().getAsLong() + "]" : "")
                    + (outcome.details().isEmpty() ? "" : "\n" + outcome.details()), outcome.details());
        }
    }

    @Test
    public void required_PT2PT_01_nonOvertaking() {
        verify("PT2PT.01");
    }

    @Test
    public void required_PT2PT_02_nonOvertakingAnyTag() {
        verify("PT2PT.02");
    }

    @Test
    public void required_PT2PT_03_earliestPostedReceiveWins() {
        verify("PT2PT.03");
    }

    @Test
    public void required_PT2PT_04_anySourceStatusNamesSender() {
        verify("PT2PT.04");
    }

    @Test
    public void required_PT2PT_05_anyTagStatusNamesTag() {
        verify("PT2PT.05");
    }

    @Test
    public void required_PT2PT_06_exactlyOnceUnderFlood() {
        verify("PT2PT.06");
    }

    @Test
    public void required_PT2PT_07_byteExactPayloads() {
        verify("PT2PT.07");
    }

    @Test
    public void required_PT2PT_08_guardBytesUntouched() {
        verify("PT2PT.08");
    }

    @Test
    public void required_PT2PT_09_probeDoesNotConsume() {
        verify("PT2PT.09");
    }

    @Test
    public void required_PT2PT_10_blockingProbeWakes() {
        verify("PT2PT.10");
    }

    @Test
    public void required_PT2PT_11_iprobeSelectsSourceAndTag() {
        verify("PT2PT.11");
    }

    @Test
    public void required_PT2PT_12_statusCounts() {
        verify("PT2PT.12");
    }

    @Test
    public void required_PT2PT_13_truncationOfPostedReceive() {
        verify("PT2PT.13");
    }

    @Test
    public void required_PT2PT_14_truncationOfUnexpectedMessage() {
        verify("PT2PT.14");
    }

    @Test
    public void required_PT2PT_15_ssendWaitsForReceive() {
        verify("PT2PT.15");
    }

    @Test
    public void required_PT2PT_16_selfMessages() {
        verify("PT2PT.16");
    }

    @Test
    public void required_PT2PT_17_nullRequests() {
        verify("PT2PT.17");
    }

    @Test
    public void required_PT2PT_18_procNull() {
        verify("PT2PT.18");
    }

    @Test
    public void required_PT2PT_19_testAllChangesNothingUntilAll() {
        verify("PT2PT.19");
    }

    @Test
    public void required_PT2PT_20_waitAnyAndSome() {
        verify("PT2PT.20");
    }

    @Test
    public void required_PT2PT_21_cancelUnmatchedReceive() {
        verify("PT2PT.21");
    }

    @Test
    public void required_PT2PT_22_cancelMatchedReceive() {
        verify("PT2PT.22");
    }

    @Test
    public void required_PT2PT_23_badArgumentsErrorClass() {
        verify("PT2PT.23");
    }

    @Test
    public void required_PT2PT_24_tagSelectsAmongWaiting() {
        verify("PT2PT.24");
    }

    @Test
    public void required_PT2PT_25_sendrecvRing() {
        verify("PT2PT.25");
    }

    @Test
    public void required_PT2PT_26_closedCommunicatorRejects() {
        verify("PT2PT.26");
    }

    @Test
    public void required_PT2PT_27_largestTags() {
        verify("PT2PT.27");
    }

    @Test
    public void required_PT2PT_28_datatypesRoundTrip() {
        verify("PT2PT.28");
    }

    @Test
    public void required_PT2PT_29_allocatedMemoryAsBuffer() {
        verify("PT2PT.29");
    }

    @Test
    public void required_PT2PT_30_generatedProgramsMatchReference() {
        verify("PT2PT.30");
    }

    @Test
    public void optional_PT2PT_31_cancelUnmatchedSend() {
        verify("PT2PT.31");
    }

    @Test
    public void stochastic_PT2PT_32_racingWildcardReceives() {
        verify("PT2PT.32");
    }

    @Test
    public void required_PT2PT_33_progressPastUnexpectedMessages() {
        verify("PT2PT.33");
    }

    @Test
    public void optional_MBX_01_noTwoOwners() {
        verify("MBX.01");
    }

    @Test
    public void required_MBX_02_nothingLostOrDuplicated() {
        verify("MBX.02");
    }

    @Test
    public void required_MBX_03_noDeadlockBeforeDeadline() {
        verify("MBX.03");
    }

    @Test
    public void required_MBX_04_linearizable() {
        verify("MBX.04");
    }

    @Test
    public void required_MBX_05_fullMailboxNeverBlocksIsend() {
        verify("MBX.05");
    }

    @Test
    public void stochastic_MBX_06_allToAllExchange() {
        verify("MBX.06");
    }

    @Test
    public void required_LARGE_01_transparentAroundThreshold() {
        verify("LARGE.01");
    }

    @Test
    public void required_LARGE_02_smallAfterLargeNotFirst() {
        verify("LARGE.02");
    }

    @Test
    public void required_LARGE_03_concurrentLargeSendsDoNotInterleave() {
        verify("LARGE.03");
    }

    @Test
    public void required_LARGE_04_reclaimedAfterReceive() {
        verify("LARGE.04");
    }

    @Test
    public void required_LARGE_05_reclaimedAfterTruncationAndCancel() {
        verify("LARGE.05");
    }

    @Test
    public void required_LARGE_06_largeUnexpectedMessages() {
        verify("LARGE.06");
    }

    @Test
    public void required_LARGE_07_largeSynchronousSend() {
        verify("LARGE.07");
    }

    @Test
    public void required_LARGE_08_largeAnySource() {
        verify("LARGE.08");
    }

    @Test
    public void required_PT2PT_34_persistentRequestsReadTheirBufferAtEachStart() {
        verify("PT2PT.34");
    }

    @Test
    public void required_PT2PT_35_matchedProbeTakesItsMessage() {
        verify("PT2PT.35");
    }

    @Test
    public void required_PT2PT_36_bufferedSendsUseTheAttachedBuffer() {
        verify("PT2PT.36");
    }

    @Test
    public void required_PT2PT_37_sendrecvReplaceShiftsAndReadyModeDelivers() {
        verify("PT2PT.37");
    }

    @Test
    public void required_PT2PT_38_partitionedPartsArriveWhenReady() {
        verify("PT2PT.38");
    }

    @Test
    public void required_PT2PT_39_persistentSendsOfEveryModeAndImrecv() {
        verify("PT2PT.39");
    }

    @Test
    public void required_COLL_08_gatherScatterFamilyPlaceEveryBlock() {
        verify("COLL.08");
    }

    @Test
    public void required_COLL_09_reduceScatterAndExscan() {
        verify("COLL.09");
    }

    @Test
    public void required_COLL_10_nonBlockingCollectivesMatchTheBlockingOnes() {
        verify("COLL.10");
    }

    @Test
    public void required_COLL_11_persistentCollectivesRestart() {
        verify("COLL.11");
    }

    @Test
    public void required_COLL_12_nonBlockingBarrierBcastAllreduceKeepTheirOrder() {
        verify("COLL.12");
    }

    @Test
    public void required_COLL_13_persistentCollectivesOfEveryForm() {
        verify("COLL.13");
    }

    @Test
    public void required_COMM_01_dupAndIdupIsolateTheirTraffic() {
        verify("COMM.01");
    }

    @Test
    public void required_COMM_02_groupOperationsFollowTheStandard() {
        verify("COMM.02");
    }

    @Test
    public void required_COMM_03_createAndCreateGroupBuildSubsets() {
        verify("COMM.03");
    }

    @Test
    public void required_COMM_04_intercommunicatorsJoinTwoGroups() {
        verify("COMM.04");
    }

    @Test
    public void required_COMM_05_attributesFollowTheirKeys() {
        verify("COMM.05");
    }

    @Test
    public void required_COMM_06_hintsAreKeptAndPassedOn() {
        verify("COMM.06");
    }

    @Test
    public void required_COMM_07_errorHandlersSeeEachErrorOnce() {
        verify("COMM.07");
    }

    @Test
    public void required_COMM_08_intercommunicatorVectorCollectives() {
        verify("COMM.08");
    }

    @Test
    public void required_COMM_09_predefinedAttributesAreAnswered() {
        verify("COMM.09");
    }

    @Test
    public void required_COMM_10_intercommunicatorNonBlockingCollectives() {
        verify("COMM.10");
    }

    @Test
    public void required_COMM_11_splitTypeSharedPartitionsByKey() {
        verify("COMM.11");
    }

    @Test
    public void required_TOPO_01_cartesianGridsNumberRanksRowMajor() {
        verify("TOPO.01");
    }

    @Test
    public void required_TOPO_02_shiftFindsTheNeighboursMpiNames() {
        verify("TOPO.02");
    }

    @Test
    public void required_TOPO_03_subKeepsTheDimensionsAskedFor() {
        verify("TOPO.03");
    }

    @Test
    public void required_TOPO_04_distributedGraphsHoldTheirEdges() {
        verify("TOPO.04");
    }

    @Test
    public void required_TOPO_05_topologyErrorsAreTyped() {
        verify("TOPO.05");
    }

    @Test
    public void required_TOPO_06_neighborhoodCollectivesFollowTheTopology() {
        verify("TOPO.06");
    }

    @Test
    public void required_TOPO_07_nonBlockingNeighborhoodCollectivesOverlap() {
        verify("TOPO.07");
    }

    @Test
    public void required_TYPE_01_derivedTypesInPointToPoint() {
        verify("TYPE.01");
    }

    @Test
    public void required_TYPE_02_partialAndTruncatedDerivedReceives() {
        verify("TYPE.02");
    }

    @Test
    public void required_TYPE_03_derivedTypesInCollectives() {
        verify("TYPE.03");
    }

    @Test
    public void required_TYPE_04_unusableDatatypesAreTypedErrors() {
        verify("TYPE.04");
    }

    @Test
    public void required_COLL_01_barrierWaitsForEveryRank() {
        verify("COLL.01");
    }

    @Test
    public void required_COLL_02_bcastReachesEveryRankFromEveryRoot() {
        verify("COLL.02");
    }

    @Test
    public void required_COLL_03_nonCommutativeReductionsInRankOrder() {
        verify("COLL.03");
    }

    @Test
    public void required_COLL_04_allreduceSameBitsOnEveryRank() {
        verify("COLL.04");
    }

    @Test
    public void required_COLL_05_splitKeepsItsOwnContext() {
        verify("COLL.05");
    }

    @Test
    public void required_COLL_06_alltoallBlocksGoWhereAddressed() {
        verify("COLL.06");
    }

    @Test
    public void required_COLL_07_collectivesOnAllocatedMemory() {
        verify("COLL.07");
    }

    @Test
    public void required_CKPT_01_checkpointCallsArePortable() {
        verify("CKPT.01");
    }

    @Test
    public void optional_CKPT_02_retainedUntilCheckpointed() {
        verify("CKPT.02");
    }

    @Test
    public void optional_CKPT_03_replayInChannelOrder() {
        verify("CKPT.03");
    }

    @Test
    public void optional_CKPT_04_wildcardReplayInOriginalOrder() {
        verify("CKPT.04");
    }

    @Test
    public void optional_CKPT_05_persistedBeforeVisible() {
        verify("CKPT.05");
    }

    @Test
    public void optional_EMBSP_01_collectivesMatchTheThreadedProvider() {
        verify("EMBSP.01");
    }

    @Test
    public void optional_EMBSP_02_countedIoWithinItsBound() {
        verify("EMBSP.02");
    }

    @Test
    public void optional_EMBSP_03_contextsLeaveMemory() {
        verify("EMBSP.03");
    }

    @Test
    public void optional_PROC_01_stoppedRankFails() {
        verify("PROC.01");
    }

    @Test
    public void optional_PROC_02_ranksEndWithTheirLauncher() {
        verify("PROC.02");
    }

    @Test
    public void required_RMA_01_fenceCompletesEveryAccess() {
        verify("RMA.01");
    }

    @Test
    public void required_RMA_02_postStartCompleteWaitCompleteTheEpoch() {
        verify("RMA.02");
    }

    @Test
    public void required_RMA_03_exclusiveLockExcludes() {
        verify("RMA.03");
    }

    @Test
    public void required_RMA_04_flushAndUnlockCompleteAtTheTarget() {
        verify("RMA.04");
    }

    @Test
    public void required_RMA_05_accumulatesAreAtomic() {
        verify("RMA.05");
    }

    @Test
    public void required_RMA_06_compareAndSwapIsAtomic() {
        verify("RMA.06");
    }

    @Test
    public void optional_RMA_07_sharedWindowsAreLoadedAndStoredDirectly() {
        verify("RMA.07");
    }

    @Test
    public void required_RMA_08_badCallsAreTypedErrors() {
        verify("RMA.08");
    }

    @Test
    public void optional_RMA_09_windowsWorkAcrossProcesses() {
        verify("RMA.09");
    }

    @Test
    public void required_RMA_10_derivedTypesMoveTheirPieces() {
        verify("RMA.10");
    }

    @Test
    public void required_RMA_11_flushAllCompletesTheLockedTargets() {
        verify("RMA.11");
    }

    @Test
    public void required_RMA_12_requestBasedAccessesCompleteAtTheOrigin() {
        verify("RMA.12");
    }

    @Test
    public void required_RMA_13_assertionsKeepTheirPromisesAndAreChecked() {
        verify("RMA.13");
    }

    @Test
    public void required_RMA_14_originAndTargetTypesLayOutTheirOwnSides() {
        verify("RMA.14");
    }
}
