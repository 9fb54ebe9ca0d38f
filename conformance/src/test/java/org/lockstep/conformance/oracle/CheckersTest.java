package org.lockstep.conformance.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.api.Communicator.ANY_SOURCE;
import static org.lockstep.api.Communicator.ANY_TAG;

import java.util.List;

import org.junit.jupiter.api.Test;

class CheckersTest {
    @Test
    void exactlyOnceNamesDuplicatesLossesAndStrangers() {
        assertEquals(List.of(), ExactlyOnceChecker.check(List.of(1, 2, 3), List.of(3, 1, 2), List.of()));
        List<String> p = ExactlyOnceChecker.check(List.of(1, 2, 3), List.of(1, 1, 3), List.of("from rank 9"));
        assertTrue(p.contains("1 was received 2 times"), p.toString());
        assertTrue(p.contains("never received: [2]"), p.toString());
        assertTrue(p.contains("received a message nobody sent: from rank 9"), p.toString());
    }

    private static ChannelOrderChecker.Delivery d(int post, int specTag, long sendOrder, int tag) {
        return new ChannelOrderChecker.Delivery(1, post, 0, specTag, 0, sendOrder, tag, "m" + sendOrder);
    }

    @Test
    void overtakingIsFoundAndSelectionByTagIsNot() {
        assertEquals(List.of(), ChannelOrderChecker.check(List.of(d(0, ANY_TAG, 0, 1), d(1, ANY_TAG, 1, 1))));
        assertEquals(1, ChannelOrderChecker.check(List.of(d(0, ANY_TAG, 1, 1), d(1, ANY_TAG, 0, 1))).size(),
                "the earlier receive took the later message although the earlier one matched it");
        assertEquals(List.of(), ChannelOrderChecker.check(List.of(d(0, 2, 1, 2), d(1, 1, 0, 1))),
                "a receive for tag 2 may pass over an earlier message with tag 1");
    }

    private static LinearizabilityChecker.Operation<MailboxModel> op(String label, long from, long to,
                                                                     LinearizabilityChecker.Effect<MailboxModel> e) {
        return new LinearizabilityChecker.Operation<>(label, from, to, e);
    }

    @Test
    void aFifoHistoryIsLinearizableAndAnOvertakingOneIsNot() {
        var send1 = op("send m1", 0, 10, MailboxModel.send(1, 0, 1, 5, 0));
        var send2 = op("send m2", 20, 30, MailboxModel.send(2, 0, 1, 5, 1));
        var recvFirst = op("recv m1", 5, 40, MailboxModel.receive(1, 0, 5, 1, 0));
        var recvSecond = op("recv m2", 50, 60, MailboxModel.receive(1, 0, 5, 2, 0));
        assertTrue(LinearizabilityChecker.check(MailboxModel.EMPTY, List.of(send1, send2, recvFirst, recvSecond)).isEmpty());
        var recvSecondFirst = op("recv m2", 35, 40, MailboxModel.receive(1, ANY_SOURCE, ANY_TAG, 2, 0));
        var recvFirstLater = op("recv m1", 50, 60, MailboxModel.receive(1, ANY_SOURCE, ANY_TAG, 1, 0));
        assertTrue(LinearizabilityChecker.check(MailboxModel.EMPTY, List.of(send1, send2, recvSecondFirst, recvFirstLater)).isPresent(),
                "m2 was received before m1 although both match and m1 was sent first");
    }

    @Test
    void aReceiveThatEndsBeforeItsSendStartsIsNotLinearizable() {
        var recv = op("recv m1", 0, 5, MailboxModel.receive(1, 0, ANY_TAG, 1, 0));
        var send = op("send m1", 10, 20, MailboxModel.send(1, 0, 1, 3, 0));
        assertTrue(LinearizabilityChecker.check(MailboxModel.EMPTY, List.of(recv, send)).isPresent());
    }

    @Test
    void aMessageReceivedTwiceIsNotLinearizable() {
        var send = op("send m1", 0, 1, MailboxModel.send(1, 0, 1, 3, 0));
        var a = op("recv a", 2, 3, MailboxModel.receive(1, 0, 3, 1, 0));
        var b = op("recv b", 4, 5, MailboxModel.receive(1, 0, 3, 1, 0));
        assertTrue(LinearizabilityChecker.check(MailboxModel.EMPTY, List.of(send, a, b)).isPresent());
    }

    @Test
    void referenceReductionsCombineInRankOrder() {
        assertEquals(List.of(6L, 15L), java.util.Arrays.stream(ReferenceReductions.reduce(
                List.of(new long[] {1, 4}, new long[] {2, 5}, new long[] {3, 6}), Long::sum)).boxed().toList());
        // a non-commutative operation shows the order: ((10 - 2) - 3) = 5
        assertEquals(5L, ReferenceReductions.reduce(List.of(new long[] {10}, new long[] {2}, new long[] {3}), (a, b) -> a - b)[0]);
        assertEquals(List.of(1L, 3L, 6L), ReferenceReductions.scan(List.of(new long[] {1}, new long[] {2}, new long[] {3}), Long::sum)
                .stream().map(a -> a[0]).toList());
    }
}
