package org.lockstep.pcie.layout;

/** Sizes shared by the descriptors. */
public final class LayoutConstants {
    /** Every single-writer control word lives on its own line of this size, so writers never share a line. */
    public static final int CACHE_LINE = 64;

    private LayoutConstants() {
    }

    /**
     * One step of the check words the descriptors carry ({@link LoggedBlockDescriptor#check},
     * {@link SlotDescriptor#descriptorCheck}): folds word {@code w} into {@code h}. For a fixed
     * {@code w} it is a bijection of {@code h} and for a fixed {@code h} one of {@code w}, so a
     * chain of steps changes whenever exactly one of its words does.
     */
    public static long checkStep(long h, long w) {
        long m = (h ^ w) * 0x9E3779B97F4A7C15L;
        return m ^ m >>> 29;
    }

    /** {@code value} rounded up to a multiple of {@code alignment} (a power of two). */
    public static long align(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }
}
