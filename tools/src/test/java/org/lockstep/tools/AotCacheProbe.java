package org.lockstep.tools;

/** A program of java.base only, packed into a jar by {@link RankStartCacheTest} to be started with and without an AOT cache. */
public final class AotCacheProbe {
    private AotCacheProbe() {
    }

    public static void main(String[] args) {
        System.out.println("probe " + String.join(",", java.util.List.of(args)));
    }
}
