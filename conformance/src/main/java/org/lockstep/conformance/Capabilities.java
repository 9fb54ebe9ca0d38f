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
 * @param externalMemory        how the provider's memory, disks and report are set, with {@link Capability#EXTERNAL_MEMORY}
 */
public record Capabilities(int maxRanks, OptionalLong indirectionThreshold, OptionalLong indirectBytesPerRank,
                           Set<Capability> features, Optional<DeviceRouting> deviceRouting, Optional<ExternalMemoryRouting> externalMemory) {
    public Capabilities {
        if (maxRanks < 1) {
            throw new IllegalArgumentException("maxRanks must be at least 1, got " + maxRanks);
        }
        features = features.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(features));
        if (features.contains(Capability.DEVICE_TRANSPORT) != deviceRouting.isPresent()) {
            throw new IllegalArgumentException("DEVICE_TRANSPORT is declared exactly when a device routing is given");
        }
        if (features.contains(Capability.EXTERNAL_MEMORY) != externalMemory.isPresent()) {
            throw new IllegalArgumentException("EXTERNAL_MEMORY is declared exactly when an external-memory routing is given");
        }
    }

    /** A provider that declares nothing beyond its largest world. */
    public static Capabilities of(int maxRanks) {
        return new Capabilities(maxRanks, OptionalLong.empty(), OptionalLong.empty(), Set.of(), Optional.empty(), Optional.empty());
    }

    public Capabilities withIndirectionThreshold(long bytes) {
        return new Capabilities(maxRanks, OptionalLong.of(bytes), indirectBytesPerRank, features, deviceRouting, externalMemory);
    }

    public Capabilities withIndirectBytesPerRank(long bytes) {
        return new Capabilities(maxRanks, indirectionThreshold, OptionalLong.of(bytes), features, deviceRouting, externalMemory);
    }

    public Capabilities with(Capability feature) {
        EnumSet<Capability> more = features.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(features);
        more.add(feature);
        return new Capabilities(maxRanks, indirectionThreshold, indirectBytesPerRank, more, deviceRouting, externalMemory);
    }

    public Capabilities withDeviceRouting(DeviceRouting routing) {
        EnumSet<Capability> more = features.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(features);
        more.add(Capability.DEVICE_TRANSPORT);
        return new Capabilities(maxRanks, indirectionThreshold, indirectBytesPerRank, more, Optional.of(routing), externalMemory);
    }

    /** These declarations with {@link Capability#EXTERNAL_MEMORY}, reached through {@code routing}. */
    public Capabilities withExternalMemory(ExternalMemoryRouting routing) {
        EnumSet<Capability> more = features.isEmpty() ? EnumSet.noneOf(Capability.class) : EnumSet.copyOf(features);
        more.add(Capability.EXTERNAL_MEMORY);
        return new Capabilities(maxRanks, indirectionThreshold, indirectBytesPerRank, more, deviceRouting, Optional.of(routing));
    }

    public boolean has(Capability feature) {
        return features.contains(feature);
    }
}
