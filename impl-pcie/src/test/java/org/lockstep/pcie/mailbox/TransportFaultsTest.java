package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.CheckpointTesting.*;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** The self-test's fault-injection property: parsed strictly, off by default, and a fault really breaks retention. */
class TransportFaultsTest {
    @Test
    void namesAreParsedAndAnUnknownOneIsAnArgumentError() {
        TransportFaults two = TransportFaults.parse(" frees_on_receipt , FORGETS_WILDCARD_ORDER,");
        assertTrue(two.has(TransportFaults.Fault.FREES_ON_RECEIPT));
        assertTrue(two.has(TransportFaults.Fault.FORGETS_WILDCARD_ORDER) && two.breaksTheLog());
        assertFalse(two.has(TransportFaults.Fault.REPLAYS_OUT_OF_ORDER));
        assertEquals(TransportFaults.NONE, TransportFaults.parse(" "));
        assertEquals(TransportFaults.NONE, TransportFaults.from(options(2)), "no faults unless asked for");
        LockstepException e = assertThrows(LockstepException.class, () -> TransportFaults.parse("FREES_ON_RECEIPT,LOSES_ALL"));
        assertEquals(ErrorClass.ARG, e.errorClass());
        assertTrue(e.getMessage().contains("LOSES_ALL") && e.getMessage().contains(MailboxOptions.FAULTS), e.getMessage());
        assertThrows(LockstepException.class, () -> MailboxThreadWorld.open(options(2).with(MailboxOptions.FAULTS, "NOPE")));
    }

    @Test
    void freesOnReceiptReclaimsConsumedMessagesThatNoCheckpointCovers() {
        for (boolean faulty : new boolean[] {false, true}) {
            try (MailboxThreadWorld world = MailboxThreadWorld.open(faulty ? options(2).with(MailboxOptions.FAULTS, "FREES_ON_RECEIPT")
                    : options(2))) {
                Communicator sender = world.communicator(0);
                Communicator receiver = world.communicator(1);
                MailboxEndpoint senderEndpoint = endpoint(world, 0);
                receiver.checkpoints().checkpoint();
                for (long i = 1; i <= 3; i++) {
                    sender.send(new long[] {i, 0}, 1, 0);
                    assertEquals(i, receive(receiver, 0, sender)[0]);
                }
                if (faulty) {
                    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                        pump(sender);
                        return senderEndpoint.messageLog().retainedFor(1).isEmpty();
                    });
                    assertEquals(3, senderEndpoint.statistics().messagesReclaimed, "freed on receipt, before any checkpoint covered them");
                } else {
                    sender.checkpoints().checkpoint(); // reclaims what the receiver's checkpoint released: nothing
                    pump(sender);
                    assertEquals(3, senderEndpoint.messageLog().retainedFor(1).size(), "retained until the receiver checkpoints past them");
                    assertEquals(0, senderEndpoint.statistics().messagesReclaimed);
                }
            }
        }
    }
}
