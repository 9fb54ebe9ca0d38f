package org.lockstep.pcie.mailbox;

import org.lockstep.api.JobOptions;

/** The job properties the mailbox transport reads, with their defaults. */
public final class MailboxOptions {
    /** Name of the device provider ({@code emulated}; {@code mapped} with the multi-process issue). */
    public static final String DEVICE = "lockstep.device";
    /** Device capacity; by default exactly what the layout needs. */
    public static final String DEVICE_SIZE = "lockstep.device.size";
    /** Device path, for providers that map one. */
    public static final String DEVICE_PATH = "lockstep.device.path";
    /** Prefix of options passed to the device provider, e.g. {@code lockstep.device.option.latency=50us}. */
    public static final String DEVICE_OPTION_PREFIX = "lockstep.device.option.";
    /** The indirection threshold T in bytes: larger messages go through the heap. */
    public static final String INLINE_THRESHOLD = "lockstep.mailbox.inlineThreshold";
    /** Ring length of every pair mailbox. */
    public static final String SLOTS = "lockstep.mailbox.slots";
    /** Ring length of every receiver's asynchronous mailbox (0 disables; also off without device CAS). */
    public static final String ASYNC_SLOTS = "lockstep.mailbox.asyncSlots";
    /** Largest fragment of a long message: small enough to pipeline the two copies. */
    public static final String FRAGMENT = "lockstep.mailbox.fragment";
    /** Heap partition per sender, for indirect payloads. */
    public static final String HEAP_PER_RANK = "lockstep.mailbox.heapPerRank";

    public static final String DEFAULT_DEVICE = "emulated";
    public static final int DEFAULT_INLINE_THRESHOLD = 2048;
    public static final int DEFAULT_SLOTS = 16;
    public static final int DEFAULT_ASYNC_SLOTS = 64;
    public static final long DEFAULT_HEAP_PER_RANK = 16L << 20;
    public static final long DEFAULT_FRAGMENT = 256L << 10;

    private MailboxOptions() {
    }

    static int intOption(JobOptions options, String key, long defaultValue) {
        long value = options.longProperty(key, defaultValue);
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new org.lockstep.api.LockstepException(org.lockstep.api.ErrorClass.ARG, key + "=" + value + " is out of range");
        }
        return (int) value;
    }
}
