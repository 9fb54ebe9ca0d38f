package org.lockstep.conformance;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * One rule of the catalog: an id such as {@code PT2PT.01}, a level, one sentence of what it
 * checks, the tests it is adapted from, the capabilities it needs, and its check.
 *
 * @param group    its group
 * @param number   its number in the group
 * @param level    required, optional or stochastic
 * @param name     a lowerCamelCase name, the end of its verification method's name
 * @param summary  one sentence of what it checks
 * @param origins  the tests it is adapted from
 * @param needs    capabilities the target must declare for it to run (an optional rule's)
 * @param check    the check
 */
public record Rule(Group group, int number, Level level, String name, String summary, List<Origin> origins,
                   Set<Capability> needs, Check check) {
    /** A rule's check; one of two kinds, by what it runs against. */
    public sealed interface Check permits MessagingCheck, DeviceCheck {
    }

    /** A check against a messaging provider. */
    @FunctionalInterface
    public non-sealed interface MessagingCheck extends Check {
        void check(MessagingRuleContext context) throws Exception;
    }

    /** A check against a device. */
    @FunctionalInterface
    public non-sealed interface DeviceCheck extends Check {
        void check(DeviceRuleContext context) throws Exception;
    }

    public Rule {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(check, "check");
        origins = List.copyOf(origins);
        needs = Set.copyOf(needs);
        if (number < 1 || number > 99) {
            throw new IllegalArgumentException("rule numbers are 1..99, got " + number);
        }
        if (name == null || !name.matches("[a-z][A-Za-z0-9]*")) {
            throw new IllegalArgumentException("a rule name is lowerCamelCase, got " + name);
        }
        if (summary == null || summary.isBlank() || origins.isEmpty()) {
            throw new IllegalArgumentException("rule " + name + " needs a summary and an origin");
        }
        boolean deviceGroup = group.subject() == Group.Subject.DEVICE;
        // A device rule's capability is the device's own declaration, which the check reads.
        if (!deviceGroup && (level == Level.OPTIONAL) == needs.isEmpty()) {
            throw new IllegalArgumentException("rule " + name + ": an optional messaging rule, and only one, needs a capability");
        }
        if (deviceGroup != (check instanceof DeviceCheck)) {
            throw new IllegalArgumentException("rule " + name + ": the check does not fit group " + group);
        }
    }

    /** The rule id, e.g. {@code PT2PT.01}. */
    public String id() {
        return group.name() + "." + String.format(Locale.ROOT, "%02d", number);
    }

    /** The name of its verification method, e.g. {@code required_PT2PT_01_nonOvertaking}. */
    public String methodName() {
        return level.prefix() + "_" + group.name() + "_" + String.format(Locale.ROOT, "%02d", number) + "_" + name;
    }

    @Override
    public String toString() {
        return id() + " " + name + " (" + level.prefix() + ")";
    }
}
