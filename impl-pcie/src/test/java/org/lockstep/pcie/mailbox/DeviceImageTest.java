package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.SlotDescriptor;
import org.lockstep.pcie.layout.SuperblockDescriptor;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;

/** Formatting, attaching, and what a damaged or foreign device image gives. */
class DeviceImageTest {
    private static final Duration WAIT = Duration.ofMillis(200);
    private static final MailboxConfig CONFIG = new MailboxConfig(3, 4, 128, 8, 64 * 1024, 0x1234);

    private static ExternalMemory device(long capacity) {
        return DeviceProviders.open(DeviceSpec.of("emulated", capacity));
    }

    private static long required() {
        return new MailboxLayout(CONFIG, DeviceSpec.DEFAULT_BLOCK_SIZE).requiredCapacity();
    }

    @Test
    void aFormattedDeviceAttachesWithTheSameShape() {
        try (ExternalMemory d = device(required())) {
            DeviceFormat.format(d, CONFIG, WAIT);
            MailboxLayout attached = DeviceFormat.attach(d, CONFIG.jobKey(), CONFIG.worldSize(), WAIT);
            assertEquals(CONFIG, attached.config());
        }
    }

    /**
     * Whether the ranks share cores is the formatter's finding, kept in the superblock: every rank
     * reads the same flag (the device collectives choose their algorithms by it).
     */
    @Test
    void theFormatterRecordsWhetherTheRanksShareItsCores() {
        int cpus = Runtime.getRuntime().availableProcessors();
        for (int ranks : new int[] {1, 2, 64}) {
            MailboxConfig config = new MailboxConfig(ranks, 4, 128, 8, 64 * 1024, 0x1234 + ranks);
            try (ExternalMemory d = device(new MailboxLayout(config, DeviceSpec.DEFAULT_BLOCK_SIZE).requiredCapacity())) {
                DeviceFormat.format(d, config, WAIT);
                boolean expected = org.lockstep.spi.messaging.IdleStrategy.Policy.forRanksOnThisHost(ranks)
                        == org.lockstep.spi.messaging.IdleStrategy.Policy.OVERSUBSCRIBED;
                assertEquals(expected, DeviceFormat.ranksShareCores(d), ranks + " ranks on " + cpus + " CPUs");
                assertEquals(expected, (d.getInt(SuperblockDescriptor.FLAGS_OFFSET) & SuperblockDescriptor.FLAG_RANKS_SHARE_CORES) != 0);
                DeviceFormat.attach(d, config.jobKey(), ranks, WAIT); // the flag is inside the checksum
            }
        }
        assertTrue(org.lockstep.spi.messaging.IdleStrategy.Policy.forRanksOnThisHost(64)
                == org.lockstep.spi.messaging.IdleStrategy.Policy.OVERSUBSCRIBED || cpus >= 64, "64 ranks share a small host's cores");
    }

    /**
     * Ranks of other jobs (the hybrid provider's pretend hosts on one machine) declared by
     * {@code lockstep.ranksOnHost}: two ranks on a host of 4096 ranks share its cores, and every
     * attaching rank reads that back; a declaration that is no number is an ARG error.
     */
    @Test
    void ranksDeclaredOnTheHostMakeAFewRanksShareItsCores() {
        MailboxConfig config = MailboxOptions.config(JobOptions.ofRanks(2).with(IdleStrategy.RANKS_ON_HOST_PROPERTY, "4096"), 2, 0x4096);
        assertTrue(config.ranksShareCores(), "2 of 4096 ranks on this host");
        assertEquals(IdleStrategy.Policy.forRanksOnThisHost(2) == IdleStrategy.Policy.OVERSUBSCRIBED,
                MailboxOptions.config(JobOptions.ofRanks(2), 2, 0x4096).ranksShareCores(), "without the declaration, by the job's ranks");
        try (ExternalMemory d = device(new MailboxLayout(config, DeviceSpec.DEFAULT_BLOCK_SIZE).requiredCapacity())) {
            DeviceFormat.format(d, config, WAIT);
            assertTrue(DeviceFormat.ranksShareCores(d));
            assertEquals(config, DeviceFormat.attach(d, config.jobKey(), 2, WAIT).config());
        }
        LockstepException bad = assertThrows(LockstepException.class,
                () -> MailboxOptions.config(JobOptions.ofRanks(2).with(IdleStrategy.RANKS_ON_HOST_PROPERTY, "many"), 2, 1));
        assertEquals(ErrorClass.ARG, bad.errorClass());
        assertTrue(bad.getMessage().contains("lockstep.ranksOnHost"), bad.getMessage());
    }

    @Test
    void aSecondFormatterAttachesInsteadOfReformatting() {
        try (ExternalMemory d = device(required())) {
            MailboxLayout first = DeviceFormat.format(d, CONFIG, WAIT);
            d.putLongRelease(first.rankEntry(0), 77); // a mark that reformatting would erase
            DeviceFormat.format(d, CONFIG, WAIT);
            assertEquals(77, d.getLongAcquire(first.rankEntry(0)));
        }
    }

    @Test
    void aDeviceTooSmallForTheLayoutIsRefusedWithTheSizeItNeeds() {
        try (ExternalMemory d = device(required() - 4096)) {
            DeviceException e = assertThrows(DeviceException.class, () -> DeviceFormat.format(d, CONFIG, WAIT));
            assertTrue(e.getMessage().contains(Long.toString(required())), e.getMessage());
        }
    }

    @Test
    void aDeviceHoldingOtherDataIsNeverFormattedOver() {
        try (ExternalMemory d = device(required())) {
            d.putLong(SuperblockDescriptor.MAGIC_OFFSET, 0x0123456789abcdefL);
            DeviceException notBlank = assertThrows(DeviceException.class, () -> DeviceFormat.format(d, CONFIG, WAIT));
            assertTrue(notBlank.getMessage().contains("refusing to format"), notBlank.getMessage());
            d.putLongRelease(SuperblockDescriptor.FORMAT_STATE_OFFSET, 0x7777);
            DeviceException garbage = assertThrows(DeviceException.class, () -> DeviceFormat.format(d, CONFIG, WAIT));
            assertTrue(garbage.getMessage().contains("not a Lockstep device"), garbage.getMessage());
            assertEquals(0x0123456789abcdefL, d.getLong(SuperblockDescriptor.MAGIC_OFFSET), "the data is untouched");
        }
    }

    @Test
    void aBlankDeviceTimesOutInsteadOfHanging() {
        try (ExternalMemory d = device(required())) {
            DeviceException e = assertThrows(DeviceException.class, () -> DeviceFormat.attach(d, 1, 3, WAIT));
            assertTrue(e.getMessage().contains("blank"), e.getMessage());
        }
    }

    @Test
    void foreignOlderCorruptAndMismatchedImagesAreEachNamed() {
        try (ExternalMemory d = device(required())) {
            DeviceFormat.format(d, CONFIG, WAIT);
            assertAttachFails(d, CONFIG.jobKey(), 4, "formatted for 3 ranks");
            assertAttachFails(d, 99, 3, "belongs to job");

            long checksum = d.getLong(SuperblockDescriptor.CHECKSUM_OFFSET);
            d.putInt(SuperblockDescriptor.SLOTS_PER_MAILBOX_OFFSET, 5);
            assertAttachFails(d, CONFIG.jobKey(), 3, "corrupt superblock");
            d.putInt(SuperblockDescriptor.SLOTS_PER_MAILBOX_OFFSET, 4);
            assertEquals(checksum, d.getLong(SuperblockDescriptor.CHECKSUM_OFFSET));

            d.putInt(SuperblockDescriptor.LAYOUT_VERSION_OFFSET, 0);
            assertAttachFails(d, CONFIG.jobKey(), 3, "layout version 0");
            d.putInt(SuperblockDescriptor.LAYOUT_VERSION_OFFSET, SuperblockDescriptor.LAYOUT_VERSION);

            d.putLong(SuperblockDescriptor.MAGIC_OFFSET, 0x4242);
            assertAttachFails(d, CONFIG.jobKey(), 3, "not a Lockstep device");

            d.putLongRelease(SuperblockDescriptor.FORMAT_STATE_OFFSET, 0xdeadbeefL);
            assertAttachFails(d, CONFIG.jobKey(), 3, "not a Lockstep device");
        }
    }

    @Test
    void aCorruptSlotHeaderIsReportedAndNeverDereferenced() {
        MailboxThreadWorld world = MailboxThreadWorld.open(TestWorlds.options(2));
        try {
            org.lockstep.api.Communicator receiver = world.communicator(1);
            MailboxLayout layout = ((MailboxCommunicator) receiver).endpoint().layout();
            ExternalMemory d = world.device();
            long slot = layout.slotAddress(MailboxLayout.pairSlotsBase(layout.mailboxAddress(0, 1)), 1, layout.config().slotsPerMailbox());
            d.putInt(slot + SlotDescriptor.SOURCE_OFFSET, 0);
            d.putLong(slot + SlotDescriptor.SEQUENCE_OFFSET, 1);
            d.putInt(slot + SlotDescriptor.FLAGS_OFFSET, SlotDescriptor.FLAG_INDIRECT);
            d.putLong(slot + SlotDescriptor.HEAP_OFFSET_OFFSET, Long.MAX_VALUE - 10);
            d.putLong(slot + SlotDescriptor.LENGTH_OFFSET, 100);
            d.putLong(slot + SlotDescriptor.MESSAGE_LENGTH_OFFSET, 100);
            d.putLongRelease(slot + SlotDescriptor.TICKET_OFFSET, 1);
            LockstepException unsealed = assertThrows(LockstepException.class, () -> receiver.iprobe(0, 0));
            assertEquals(ErrorClass.INTERN, unsealed.errorClass());
            assertTrue(unsealed.getMessage().contains("descriptor check that does not match"), unsealed.getMessage());

            // Sealed as a sender would: the range check still keeps the offset from being dereferenced.
            d.putLong(slot + SlotDescriptor.DESCRIPTOR_CHECK_OFFSET, SlotDescriptor.descriptorCheck(layout.config().jobKey(), 1, 1, 100,
                    d.getLong(slot + SlotDescriptor.TAG_OFFSET), d.getLong(slot + SlotDescriptor.FLAGS_OFFSET), Long.MAX_VALUE - 10, 100));
            org.lockstep.api.Communicator sealedReceiver = world.communicator(1);
            LockstepException e = assertThrows(LockstepException.class, () -> sealedReceiver.iprobe(0, 0));
            assertEquals(ErrorClass.INTERN, e.errorClass());
            assertTrue(e.getMessage().contains("outside its heap partition"), e.getMessage());

            d.putInt(slot + SlotDescriptor.FLAGS_OFFSET, 0);
            d.putLong(slot + SlotDescriptor.LENGTH_OFFSET, 1 << 20);
            d.putLong(slot + SlotDescriptor.MESSAGE_LENGTH_OFFSET, 1 << 20);
            org.lockstep.api.Communicator fresh = world.communicator(1);
            LockstepException inPlace = assertThrows(LockstepException.class, () -> fresh.iprobe(0, 0));
            assertTrue(inPlace.getMessage().contains("in-place length"), inPlace.getMessage());
        } finally {
            world.close();
        }
    }

    private static void assertAttachFails(ExternalMemory d, long jobKey, int worldSize, String expectedText) {
        DeviceException e = assertThrows(DeviceException.class, () -> DeviceFormat.attach(d, jobKey, worldSize, WAIT));
        assertTrue(e.getMessage().contains(expectedText), "expected '" + expectedText + "' in: " + e.getMessage());
        assertEquals(ErrorClass.DEVICE, ((LockstepException) e).errorClass());
    }
}
