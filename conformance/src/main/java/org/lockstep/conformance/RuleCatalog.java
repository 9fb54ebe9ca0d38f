package org.lockstep.conformance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.lockstep.conformance.internal.Catalog;

/**
 * Every rule of the kit, ordered by group and number. Groups whose areas have not landed yet
 * ({@link Group#COMM}, ...) have no rules; their issues add them here.
 */
public final class RuleCatalog {
    private static final List<Rule> ALL = build();

    private RuleCatalog() {
    }

    private static List<Rule> build() {
        List<Rule> rules = new ArrayList<>(Catalog.rules());
        rules.sort(Comparator.comparing(Rule::group).thenComparingInt(Rule::number));
        Set<String> ids = new HashSet<>();
        for (Rule r : rules) {
            if (!ids.add(r.id())) {
                throw new IllegalStateException("two rules have the id " + r.id());
            }
        }
        return List.copyOf(rules);
    }

    public static List<Rule> all() {
        return ALL;
    }

    /** The rules that run against messaging providers. */
    public static List<Rule> messagingRules() {
        return ALL.stream().filter(r -> r.group().subject() == Group.Subject.MESSAGING).toList();
    }

    /** The rules that run against devices. */
    public static List<Rule> deviceRules() {
        return ALL.stream().filter(r -> r.group().subject() == Group.Subject.DEVICE).toList();
    }

    public static List<Rule> group(Group group) {
        return ALL.stream().filter(r -> r.group() == group).toList();
    }

    /** The rule with this id, e.g. {@code PT2PT.01}. */
    public static Optional<Rule> byId(String id) {
        return ALL.stream().filter(r -> r.id().equals(id)).findFirst();
    }

    /** The rule with this id, or an {@link IllegalArgumentException} naming it. */
    public static Rule rule(String id) {
        return byId(id).orElseThrow(() -> new IllegalArgumentException("no rule " + id));
    }
}
