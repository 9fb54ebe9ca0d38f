package org.lockstep.conformance;

import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What a messaging provider declares about itself, so that the kit runs the rules that apply and
 * sizes its scenarios: the largest world it supports, the indirection threshold (the largest
 * message carried in place; larger ones go through indirect storage), how much indirect storage a
 * rank has, and optional features.
 *
 * @param maxRanks              the largest rank count the provider supports in one JVM
 * @param indirectionThreshold  bytes carried in place, if the provider has such a threshold
 * @param indirectBytesPerRank  indirect storage of one sending rank, if bounded and known
 * @param features              optional features ({@link Capability})
 * @param deviceRouting         how the provider is pointed at a device, with {@link Capability#DEVICE_TRANSPORT}
 */
public record Capabilities(int maxRanks, OptionalLong indirectionThreshold, OptionalLong indirectBytesPerRank,
                           Set<Capability> features, Optional<DeviceRouting> deviceRouting) {
    public Capabilities {
        if (maxRanks < 1) {
            throw new IllegalArgumentException("maxRanks must be at least 1, got " + maxRanks);
        }
        features = features.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(features));
        if (features.contains(Capability.DEVICE_TRANSPORT) != deviceRouting.isPresent()) {
            throw new IllegalArgumentException("DEVICE_TRANSPORT is declared exactly when a device routing is given");
        }
    }

    /** A provider that declares nothing beyond its largest world. */
    public static Capabilities of(int maxRanks) {
        return new Capabilities(maxRanks, OptionalLong.empty(), OptionalLong.empty(), Set.of(), Optional.empty());
    }

    public Capabilities withIndirectionThreshold(long bytes) {
        return new Capabilities(maxRanks, OptionalLong.of(bytes), indirectBytesPerRank, features, deviceRouting);
    }

    public Capabilities withIndirectBytesPerRank(long bytes) {
        return new Capabilities(maxRanks, indirectionThreshold, OptionalLong.of(bytes), features, deviceRouting);
    }

    public Capabilities with(Capability feature) {
        EnumSet<Capability> more = features.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(features);
        more.add(feature);
        return new Capabilities(maxRanks, indirectionThreshold, indirectBytesPerRank, more, deviceRouting);
    }

    public Capabilities withDeviceRouting(DeviceRouting routing) {
        EnumSet<Capability> more = features.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(features);
        more.add(Capability.DEVICE_TRANSPORT);
        return new Capabilities(maxRanks, indirectionThreshold, indirectBytesPerRank, more, Optional.of(routing));
    }

    public boolean has(Capability feature) {
        return features.contains(feature);
    }
}
