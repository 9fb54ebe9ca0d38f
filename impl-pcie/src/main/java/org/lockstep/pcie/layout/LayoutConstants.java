package org.lockstep.pcie.layout;

/** Sizes shared by the descriptors. */
public final class LayoutConstants {
    /** Every single-writer control word lives on its own line of this size, so writers never share a line. */
    public static final int CACHE_LINE = 64;

    private LayoutConstants() {
    }

    /** {@code value} rounded up to a multiple of {@code alignment} (a power of two). */
    public static long align(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }
}
