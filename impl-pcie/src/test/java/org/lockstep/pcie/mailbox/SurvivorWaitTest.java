package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.lockstep.pcie.mailbox.CheckpointTesting.*;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;

/** With restart on failure, a dead peer is waited for (bounded), and traffic resumes with its next incarnation. */
class SurvivorWaitTest {
    @Test
    void survivorsWaitForTheNextIncarnationAndTrafficResumes() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2).with(Checkpoints.RESTART_TIMEOUT_PROPERTY, "20000"))) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            sender.isend(new long[] {1, 0}, 1, 0);
            assertEquals(1, receive(receiver, 0, sender)[0]);
            receiver.checkpoints().checkpoint();
            world.rankFailed(1, new RuntimeException("killed")); // rank 1 dies; the launcher will restart it
            List<Request> sends = new ArrayList<>();
            for (long i = 2; i <= 20; i++) {
                sends.add(sender.isend(new long[] {i, 0}, 1, 0));
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            // For longer than failure detection takes, no send to the dead rank fails.
            Awaitility.await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(10)).until(() -> {
                for (Request send : sends) {
                    try {
                        send.test();
                    } catch (LockstepException e) {
                        failure.set(e);
                    }
                }
                return failure.get() == null;
            });
            Communicator again = world.restart(1);
            for (long i = 2; i <= 20; i++) {
                assertEquals(i, receive(again, 0, sender)[0]);
            }
            sends.forEach(Request::await);
        }
    }

    @Test
    void aPeerThatDoesNotComeBackWithinTheRestartTimeoutFails() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2).with(Checkpoints.RESTART_TIMEOUT_PROPERTY, "300"))) {
            Communicator sender = world.communicator(0);
            world.communicator(1);
            world.rankFailed(1, new RuntimeException("killed"));
            List<Request> sends = new ArrayList<>();
            for (long i = 1; i <= 20; i++) {
                sends.add(sender.isend(new long[] {i, 0}, 1, 0));
            }
            AtomicReference<LockstepException> failure = new AtomicReference<>();
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                for (Request send : sends) {
                    try {
                        send.test();
                    } catch (LockstepException e) {
                        failure.set(e);
                    }
                }
                return failure.get() != null;
            });
            assertInstanceOf(ProcessFailedException.class, failure.get());
            assertEquals(ErrorClass.PROC_FAILED, failure.get().errorClass());
        }
    }
}
