package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mailbox.CheckpointTesting.*;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.Request;

/** Independent checkpoint and restart of one rank over threads: replay order, wildcard order, re-send dedupe. */
class CheckpointReplayTest {
    private static final int MESSAGES = 24;

    @Test
    void aRestartedReceiverGetsEveryMessageAfterItsCheckpointOnceInChannelOrder() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2))) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            List<Request> sends = new ArrayList<>();
            for (int i = 1; i <= MESSAGES; i++) {
                sends.add(sender.isend(new long[] {i, 31L * i}, 1, i % 3));
            }
            MemorySegment state = longs(2); // messages consumed, sum
            Checkpoints checkpoints = receiver.checkpoints();
            assertTrue(checkpoints.durable());
            checkpoints.register("state", state);
            assertEquals(0, checkpoints.restore(), "a first run restores nothing");
            assertTrue(checkpoints.restart().isEmpty());
            consume(receiver, state, 5, sender);
            Checkpoints.CheckpointResult result = checkpoints.checkpoint();
            assertTrue(result.durable());
            assertEquals(1, result.epoch());
            consume(receiver, state, 6, sender); // consumed, never checkpointed: must come again

            Communicator again = world.restart(1); // the old incarnation is abandoned as if killed
            MemorySegment restored = longs(2);
            Checkpoints next = again.checkpoints();
            next.register("state", restored);
            assertEquals(new Checkpoints.Restart(2, 1), next.restart().orElseThrow());
            assertEquals(1, next.restore());
            assertEquals(5, get(restored, 0), "state as checkpointed");
            consume(again, restored, MESSAGES - 5, sender);
            assertEquals(MESSAGES, get(restored, 0));
            assertEquals(31L * MESSAGES * (MESSAGES + 1) / 2, get(restored, 1));
            assertFalse(again.iprobe(0, Communicator.ANY_TAG).isPresent(), "nothing is delivered twice");
            sends.forEach(Request::await);
            assertTrue(endpoint(world, 1).statistics().messagesReplayed >= 6, "the consumed-but-not-checkpointed ones came from the log");
        }
    }

    /** Receives {@code n} messages in channel order from rank 0 and folds them into {@code state}. */
    private static void consume(Communicator receiver, MemorySegment state, int n, Communicator sender) {
        for (int k = 0; k < n; k++) {
            long[] m = receive(receiver, 0, sender);
            assertEquals(get(state, 0) + 1, m[0], "message " + m[0] + " out of channel order (or lost, or twice)");
            set(state, 0, get(state, 0) + 1);
            set(state, 1, get(state, 1) + m[1]);
        }
    }

    @Test
    void aRestartedReceiversWildcardReceivesMatchTheSendersTheyOriginallyMatched() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(3))) {
            Communicator receiver = world.communicator(0);
            Communicator one = world.communicator(1);
            Communicator two = world.communicator(2);
            MemorySegment state = longs(1);
            receiver.checkpoints().register("matched", state);
            List<long[]> original = new ArrayList<>();
            // Rank 2 goes first in every round, so the original matching order is 2, 1, 2, 1, ...; a replay
            // that fed the log source by source would match 1, 1, 1, ... first.
            for (int round = 1; round <= 8; round++) {
                two.isend(new long[] {round, 2}, 0, 7);
                original.add(receive(receiver, Communicator.ANY_SOURCE));
                one.isend(new long[] {round, 1}, 0, 7);
                original.add(receive(receiver, Communicator.ANY_SOURCE));
                if (round == 2) {
                    set(state, 0, original.size());
                    receiver.checkpoints().checkpoint();
                }
            }
            Communicator again = world.restart(0);
            MemorySegment restored = longs(1);
            again.checkpoints().register("matched", restored);
            assertEquals(1, again.checkpoints().restore());
            int from = (int) get(restored, 0);
            for (int k = from; k < original.size(); k++) {
                long[] m = receive(again, Communicator.ANY_SOURCE);
                assertEquals(original.get(k)[2], m[2], "wildcard receive " + k + " matched another sender than originally");
                assertEquals(original.get(k)[0], m[0], "wildcard receive " + k + " matched another message than originally");
            }
            assertEquals(original.size() - from, endpoint(world, 0).statistics().wildcardMatchesReplayed);
            // After the log is used up, wildcards match freely again.
            one.isend(new long[] {99, 1}, 0, 7);
            assertEquals(99, receive(again, Communicator.ANY_SOURCE, one)[0]);
        }
    }

    @Test
    void messagesARestartedSenderSendsAgainAreDroppedByTheirSequenceNumbers() {
        try (MailboxThreadWorld world = MailboxThreadWorld.open(options(2))) {
            Communicator sender = world.communicator(0);
            Communicator receiver = world.communicator(1);
            MemorySegment next = longs(1);
            sender.checkpoints().register("next", next);
            set(next, 0, 1);
            List<long[]> received = new ArrayList<>();
            sendFrom(sender, next, 4, receiver, received); // 1..3
            sender.checkpoints().checkpoint();
            sendFrom(sender, next, 11, receiver, received); // 4..10: placed, then the sender dies

            Communicator again = world.restart(0);
            MemorySegment restored = longs(1);
            again.checkpoints().register("next", restored);
            assertEquals(1, again.checkpoints().restore());
            assertEquals(4, get(restored, 0));
            sendFrom(again, restored, 16, receiver, received); // 4..10 again (dropped), 11..15 new
            while (received.size() < 15) {
                received.add(receive(receiver, 0, again));
            }
            for (int i = 0; i < received.size(); i++) {
                assertEquals(i + 1, received.get(i)[0], "receiver got " + received.stream().map(m -> m[0]).toList());
            }
            pump(receiver);
            assertFalse(receiver.iprobe(0, Communicator.ANY_TAG).isPresent(), "a re-sent message arrived twice");
            assertEquals(7, endpoint(world, 0).statistics().resendsDropped);
            assertEquals(5, endpoint(world, 0).statistics().messagesLogged, "the restarted sender logged only 11..15: no message is stored twice");
        }
    }

    /** Sends {@code next..until-1} to rank 1, the state advancing with each, receiving whatever has arrived meanwhile. */
    private static void sendFrom(Communicator sender, MemorySegment next, long until, Communicator receiver, List<long[]> received) {
        for (long i = get(next, 0); i < until; i++) {
            Request send = sender.isend(new long[] {i, 0}, 1, 3);
            while (send.test().isEmpty()) {
                if (receiver.iprobe(0, Communicator.ANY_TAG).isPresent()) {
                    received.add(receive(receiver, 0));
                }
            }
            set(next, 0, i + 1);
        }
    }
}
