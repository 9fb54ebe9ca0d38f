package org.lockstep.pcie.layout;

import static org.lockstep.pcie.layout.SuperblockDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Formats a device for the mailbox transport and attaches to a formatted one, checking the
 * superblock ({@link SuperblockDescriptor}) so that a blank, foreign, older or corrupt image, or
 * one formatted for another world size or job, gives a clear error.
 */
public final class DeviceFormat {
    private DeviceFormat() {
    }

    /**
     * Formats {@code device} for {@code config}: claims the format state (with compare-and-set where
     * the device has it, so that of several concurrent formatters exactly one wins), clears the
     * control words, writes the header, persists it and publishes {@code READY}.
     *
     * @return the layout; or, if another party already formatted the device, the layout it wrote
     *         after checking it matches {@code config}
     */
    public static MailboxLayout format(ExternalMemory device, MailboxConfig config, Duration attachWait) {
        return format(device, config, attachWait, true);
    }

    /**
     * As {@link #format(ExternalMemory, MailboxConfig, Duration)}; on a device without
     * compare-and-set, only the party given {@code formatterWithoutCas} formats (for example
     * rank 0) and the others wait for it, since without CAS they cannot agree on one.
     */
    public static MailboxLayout format(ExternalMemory device, MailboxConfig config, Duration attachWait,
                                       boolean formatterWithoutCas) {
        return format(device, config, attachWait, formatterWithoutCas, FormatterProcess.UNKNOWN);
    }

    /**
     * As {@link #format(ExternalMemory, MailboxConfig, Duration, boolean)}, naming {@code formatter}
     * in the superblock if this caller formats.
     */
    public static MailboxLayout format(ExternalMemory device, MailboxConfig config, Duration attachWait,
                                       boolean formatterWithoutCas, FormatterProcess formatter) {
        requireRoom(device, config);
        if (!claimBlank(device, formatterWithoutCas)) {
            return attach(device, config.jobKey(), config.worldSize(), attachWait);
        }
        return formatClaimed(device, config, formatter);
    }

    /**
     * Writes the format of a device whose format state this caller has claimed ({@link #claimBlank}
     * or {@link #takeOver}): names the formatter, clears the control words, writes the header,
     * persists it and publishes {@code READY}.
     */
    public static MailboxLayout formatClaimed(ExternalMemory device, MailboxConfig config, FormatterProcess formatter) {
        MailboxLayout layout = requireRoom(device, config);
        // The host first: a reader that sees the formatter word named sees where to judge it.
        device.putLongVolatile(FORMATTER_HOST_OFFSET, formatter.host());
        device.putLongVolatile(FORMATTER_OFFSET, formatter.word());
        device.putLong(OWNER_JOB_KEY_OFFSET, 0); // the job's ranks say whether it is theirs to remove
        // Control words must start at zero: tickets, released tickets, claim words, rank states.
        long controlStart = layout.rankEntry(0);
        long controlEnd = layout.heapPartition(0);
        device.fill(controlStart, controlEnd - controlStart, (byte) 0);
        for (int rank = 0; config.checkpoints() && rank < config.worldSize(); rank++) {
            device.fill(layout.checkpointArea(rank), layout.checkpointControlLength(), (byte) 0);
            device.persist(layout.checkpointArea(rank), layout.checkpointControlLength());
        }
        device.putLong(MAGIC_OFFSET, MAGIC);
        device.putInt(LAYOUT_VERSION_OFFSET, LAYOUT_VERSION);
        device.putInt(WORLD_SIZE_OFFSET, config.worldSize());
        device.putLong(CAPACITY_OFFSET, device.capacity());
        device.putLong(JOB_KEY_OFFSET, config.jobKey());
        device.putInt(SLOTS_PER_MAILBOX_OFFSET, config.slotsPerMailbox());
        device.putInt(INLINE_CAPACITY_OFFSET, config.inlineCapacity());
        device.putInt(ASYNC_SLOTS_OFFSET, config.asyncSlots());
        boolean shareCores = config.ranksShareCores();
        device.putInt(FLAGS_OFFSET, (config.asyncSlots() > 0 ? FLAG_ASYNC_MAILBOXES : 0) | (config.checkpoints() ? FLAG_CHECKPOINTS : 0)
                | (shareCores ? FLAG_RANKS_SHARE_CORES : 0));
        device.putLong(CHECKPOINT_BYTES_PER_RANK_OFFSET, config.checkpointBytesPerRank());
        device.putLong(CHECKPOINT_CHECKSUM_OFFSET, ~config.checkpointBytesPerRank() * 0x9E3779B97F4A7C15L);
        device.putLong(HEAP_BYTES_PER_RANK_OFFSET, config.heapBytesPerRank());
        device.putLong(CHECKSUM_OFFSET, checksum(device));
        device.persist(0, controlEnd);
        device.putLongRelease(FORMAT_STATE_OFFSET, FORMAT_READY);
        device.persist(FORMAT_STATE_OFFSET, Long.BYTES);
        return layout;
    }

    private static MailboxLayout requireRoom(ExternalMemory device, MailboxConfig config) {
        MailboxLayout layout = new MailboxLayout(config, device.blockSize());
        if (layout.requiredCapacity() > device.capacity()) {
            throw new DeviceException("device " + device.name() + " is too small: " + config.worldSize() + " ranks with "
                    + config.slotsPerMailbox() + " slots of " + config.inlineCapacity() + " bytes per mailbox, "
                    + config.asyncSlots() + " async slots and " + config.heapBytesPerRank() + " heap bytes per rank need "
                    + layout.requiredCapacity() + " bytes; it has " + device.capacity());
        }
        return layout;
    }

    /**
     * Formats afresh a device whose format was cut short by a power loss of the whole machine
     * (state {@code BLANK} or {@code IN_PROGRESS} after power-on): its formatter died with the power,
     * and no rank attaches before {@code READY}, so nothing else was on it. Safe to repeat if the
     * power fails again during it.
     */
    public static MailboxLayout redoInterruptedFormat(ExternalMemory device, MailboxConfig config) {
        requireRoom(device, config);
        device.putLongVolatile(FORMAT_STATE_OFFSET, FORMAT_IN_PROGRESS);
        return formatClaimed(device, config, FormatterProcess.UNKNOWN);
    }

    /**
     * Takes the format of a device over from the formatter the superblock names as
     * {@code formatter} (one that died half way, or the formatter of a job that has ended): with
     * compare-and-set on the formatter word (process id and start time), so that of several ranks
     * exactly one takes it, then marks the format in progress. The caller then formats with {@link #formatClaimed}.
     *
     * @return whether this caller took it over (false without device compare-and-set)
     */
    public static boolean takeOver(ExternalMemory device, FormatterProcess formatter, FormatterProcess me) {
        if (!device.has(DeviceCapability.ATOMIC_CAS) || !device.compareAndSetLong(FORMATTER_OFFSET, formatter.word(), me.word())) {
            return false;
        }
        device.putLongVolatile(FORMAT_STATE_OFFSET, FORMAT_IN_PROGRESS);
        return true;
    }

    /** The format state word ({@link SuperblockDescriptor#FORMAT_BLANK}, {@code IN_PROGRESS}, {@code READY}, or anything else). */
    public static long formatState(ExternalMemory device) {
        return device.getLongAcquire(FORMAT_STATE_OFFSET);
    }

    /** The process the superblock names as its formatter (pid 0: none named). */
    public static FormatterProcess formatter(ExternalMemory device) {
        long word = device.getLongVolatile(FORMATTER_OFFSET);
        return FormatterProcess.of(word, device.getLongVolatile(FORMATTER_HOST_OFFSET));
    }

    /** The job key the superblock holds (meaningful once the format is {@code READY}). */
    public static long storedJobKey(ExternalMemory device) {
        return device.getLong(JOB_KEY_OFFSET);
    }

    /** The world size the superblock holds. */
    public static int storedWorldSize(ExternalMemory device) {
        return device.getInt(WORLD_SIZE_OFFSET);
    }

    /**
     * Whether this caller won the right to format. Only a blank device (zero magic and state) may
     * be formatted: anything else is either formatted by another party (attach to it) or not a
     * Lockstep device, which is never formatted over — it may be someone's data.
     */
    public static boolean claimBlank(ExternalMemory device, boolean formatterWithoutCas) {
        long magic = device.getLong(MAGIC_OFFSET);
        long state = device.getLongAcquire(FORMAT_STATE_OFFSET);
        if (state == FORMAT_BLANK && magic != 0) {
            throw new DeviceException("device " + device.name() + " is not blank and not a Lockstep device (magic 0x"
                    + Long.toHexString(magic) + "); refusing to format over it: remove it or choose another path");
        }
        if (state != FORMAT_BLANK) {
            return false; // formatted or being formatted: attach checks it
        }
        if (device.has(DeviceCapability.ATOMIC_CAS)) {
            return device.compareAndSetLong(FORMAT_STATE_OFFSET, FORMAT_BLANK, FORMAT_IN_PROGRESS);
        }
        if (!formatterWithoutCas) {
            return false;
        }
        device.putLongRelease(FORMAT_STATE_OFFSET, FORMAT_IN_PROGRESS);
        return true;
    }

    /**
     * Attaches to a formatted device: waits up to {@code wait} for the formatter to finish, then
     * checks magic, layout version, checksum, capacity, world size and job key.
     */
    public static MailboxLayout attach(ExternalMemory device, long jobKey, int worldSize, Duration wait) {
        if (device.capacity() < LENGTH) {
            throw new DeviceException("device " + device.name() + " of " + device.capacity() + " bytes is too small to hold a Lockstep superblock");
        }
        long deadline = System.nanoTime() + wait.toNanos();
        long state;
        while ((state = device.getLongAcquire(FORMAT_STATE_OFFSET)) != FORMAT_READY) {
            if (state != FORMAT_IN_PROGRESS && state != FORMAT_BLANK) {
                throw new DeviceException("device " + device.name() + " is not a Lockstep device (format state word is " + state + ")");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new DeviceException("device " + device.name() + " was not formatted within " + wait
                        + (state == FORMAT_BLANK ? " (it is blank)" : " (a formatter started but did not finish)"));
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        long magic = device.getLong(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new DeviceException("device " + device.name() + " is not a Lockstep device (magic 0x" + Long.toHexString(magic) + ")");
        }
        int version = device.getInt(LAYOUT_VERSION_OFFSET);
        if (version != LAYOUT_VERSION) {
            throw new DeviceException("device " + device.name() + " has layout version " + version + "; this Lockstep reads version " + LAYOUT_VERSION);
        }
        long stored = device.getLong(CHECKSUM_OFFSET);
        long computed = checksum(device);
        if (stored != computed) {
            throw new DeviceException("device " + device.name() + " has a corrupt superblock (checksum 0x" + Long.toHexString(stored)
                    + ", computed 0x" + Long.toHexString(computed) + ")");
        }
        long capacity = device.getLong(CAPACITY_OFFSET);
        if (capacity != device.capacity()) {
            throw new DeviceException("device " + device.name() + " was formatted for " + capacity + " bytes but has " + device.capacity());
        }
        int storedWorld = device.getInt(WORLD_SIZE_OFFSET);
        if (storedWorld != worldSize) {
            throw new DeviceException("device " + device.name() + " is formatted for " + storedWorld + " ranks, not " + worldSize);
        }
        long storedKey = device.getLong(JOB_KEY_OFFSET);
        if (storedKey != jobKey) {
            throw new DeviceException("device " + device.name() + " belongs to job 0x" + Long.toHexString(storedKey)
                    + ", not 0x" + Long.toHexString(jobKey));
        }
        long checkpointBytes = device.getLong(CHECKPOINT_BYTES_PER_RANK_OFFSET);
        if (device.getLong(CHECKPOINT_CHECKSUM_OFFSET) != ~checkpointBytes * 0x9E3779B97F4A7C15L || checkpointBytes < 0
                || (checkpointBytes > 0) != ((device.getInt(FLAGS_OFFSET) & FLAG_CHECKPOINTS) != 0)) {
            throw new DeviceException("device " + device.name() + " has a corrupt superblock: checkpoint bytes per rank "
                    + checkpointBytes + " disagree with their check word or the flags");
        }
        MailboxConfig config = new MailboxConfig(storedWorld, device.getInt(SLOTS_PER_MAILBOX_OFFSET), device.getInt(INLINE_CAPACITY_OFFSET),
                device.getInt(ASYNC_SLOTS_OFFSET), device.getLong(HEAP_BYTES_PER_RANK_OFFSET), storedKey, checkpointBytes,
                (device.getInt(FLAGS_OFFSET) & FLAG_RANKS_SHARE_CORES) != 0);
        MailboxLayout layout = new MailboxLayout(config, device.blockSize());
        if (layout.requiredCapacity() > device.capacity()) {
            throw new DeviceException("device " + device.name() + " has a corrupt superblock: its layout needs "
                    + layout.requiredCapacity() + " bytes but the device has " + device.capacity());
        }
        if (config.asyncSlots() > 0 && !device.has(DeviceCapability.ATOMIC_CAS)) {
            throw new DeviceException(ErrorClass.UNSUPPORTED_OPERATION, "device " + device.name()
                    + " was formatted with asynchronous mailboxes, which need compare-and-set, but this mapping has no atomics");
        }
        return layout;
    }

    /**
     * Whether {@code superblock}, the first bytes of a device read as a file (native byte order,
     * at least up to the job key), is a Lockstep superblock of job {@code jobKey}.
     */
    public static boolean holdsJob(ByteBuffer superblock, long jobKey) {
        ByteBuffer header = superblock.duplicate().order(ByteOrder.nativeOrder());
        return header.limit() >= JOB_KEY_OFFSET + Long.BYTES && header.getLong(MAGIC_OFFSET) == MAGIC
                && header.getLong(JOB_KEY_OFFSET) == jobKey;
    }

    /** Whether the formatter found the job's ranks sharing its host's cores ({@link SuperblockDescriptor#FLAG_RANKS_SHARE_CORES}). */
    public static boolean ranksShareCores(ExternalMemory device) {
        return (device.getInt(FLAGS_OFFSET) & FLAG_RANKS_SHARE_CORES) != 0;
    }

    /** FNV-1a over the checksummed header bytes. */
    static long checksum(ExternalMemory device) {
        long hash = 0xcbf29ce484222325L;
        for (int offset = 0; offset < CHECKSUMMED_LENGTH; offset += Long.BYTES) {
            long word = device.getLong(offset);
            for (int b = 0; b < Long.BYTES; b++) {
                hash ^= (word >>> (8 * b)) & 0xff;
                hash *= 0x100000001b3L;
            }
        }
        return hash;
    }
}
