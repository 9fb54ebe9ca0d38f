package org.lockstep.conformance.internal;

import java.util.ArrayList;
import java.util.List;

import org.lockstep.conformance.Rule;

/** Collects the rule definitions of every group. */
public final class Catalog {
    private Catalog() {
    }

    public static List<Rule> rules() {
        List<Rule> all = new ArrayList<>();
        all.addAll(PointToPointRules.rules());
        all.addAll(MorePointToPointRules.rules());
        all.addAll(MailboxRules.rules());
        all.addAll(IndirectionRules.rules());
        all.addAll(DeviceRules.rules());
        all.addAll(CollectiveRules.rules());
        all.addAll(DatatypeRules.rules());
        all.addAll(CollectiveFamilyRules.rules());
        all.addAll(PersistentCollectiveRules.rules());
        all.addAll(CommunicatorRules.rules());
        all.addAll(IntercommunicatorVectorRules.rules());
        all.addAll(IntercommunicatorNonBlockingRules.rules());
        all.addAll(PredefinedAttributeRules.rules());
        all.addAll(SplitTypeRules.rules());
        all.addAll(CheckpointRules.rules());
        all.addAll(ExternalMemoryRules.rules());
        all.addAll(ProcessRules.rules());
        all.addAll(TopologyRules.rules());
        all.addAll(NeighborhoodRules.rules());
        all.addAll(RmaRules.rules());
        all.addAll(MoreRmaRules.rules());
        return all;
    }
}
