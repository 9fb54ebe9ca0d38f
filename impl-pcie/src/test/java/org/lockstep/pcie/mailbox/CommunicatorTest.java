package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;

/** dup and split: isolated contexts and translated ranks. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CommunicatorTest {

    @Test
    void messagesOnADuplicateNeverMatchReceivesOnTheOriginalEvenWithWildcards() {
        TestWorlds.run(3, world -> {
            Communicator copy = world.dup();
            assertEquals(world.rank(), copy.rank());
            assertEquals(world.size(), copy.size());
            if (world.rank() == 1) {
                copy.send(new int[] {111}, 0, 5);
                world.send(new int[] {222}, 0, 5);
            } else if (world.rank() == 0) {
                int[] v = new int[1];
                Status s = world.recv(v, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                assertEquals(222, v[0], "the world receive took the duplicate's message");
                assertEquals(1, s.source());
                assertTrue(world.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG).isEmpty());
                copy.recv(v, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                assertEquals(111, v[0]);
            }
            copy.close();
            assertEquals(ErrorClass.COMM, assertThrows(LockstepException.class, () -> copy.send(new byte[1], 0, 0)).errorClass());
            world.send(new byte[0], world.rank(), 0); // the world is still open
            world.recv(new byte[0], world.rank(), 0);
        });
    }

    @Test
    void splitGroupsRanksByColorOrdersThemByKeyAndTranslatesRanks() {
        TestWorlds.run(5, world -> {
            int color = world.rank() % 2;
            // Reverse order within each color.
            Communicator half = world.split(color, -world.rank());
            assertNotNull(half);
            int expectedSize = color == 0 ? 3 : 2;
            assertEquals(expectedSize, half.size());
            // Even world ranks 4,2,0 become 0,1,2; odd 3,1 become 0,1.
            int expectedRank = color == 0 ? (4 - world.rank()) / 2 : (3 - world.rank()) / 2;
            assertEquals(expectedRank, half.rank());
            int next = (half.rank() + 1) % half.size();
            int prev = (half.rank() + half.size() - 1) % half.size();
            int[] in = new int[1];
            Status s = half.sendrecv(java.lang.foreign.MemorySegment.ofArray(new int[] {world.rank()}), 1,
                    org.lockstep.api.Datatype.INT, next, 1,
                    java.lang.foreign.MemorySegment.ofArray(in), 1, org.lockstep.api.Datatype.INT, Communicator.ANY_SOURCE, 1);
            assertEquals(prev, s.source(), "status names the sender by its rank in the new communicator");
            assertEquals(in[0] % 2, color, "a message crossed colors");
            Communicator nested = half.split(0, 0);
            assertEquals(half.size(), nested.size());
        });
    }

    @Test
    void undefinedColorGivesNoCommunicatorButTakesPart() {
        TestWorlds.run(4, world -> {
            Communicator some = world.split(world.rank() == 2 ? Communicator.UNDEFINED : 7, 0);
            if (world.rank() == 2) {
                assertNull(some);
            } else {
                assertEquals(3, some.size());
                assertEquals(world.rank() < 2 ? world.rank() : world.rank() - 1, some.rank());
                assertThrows(LockstepException.class, () -> some.send(new byte[1], 3, 0));
            }
        });
    }
}
