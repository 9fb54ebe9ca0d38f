package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The intercommunicator collectives of the SPI (the vector forms and reduce_scatter) and the
 * predefined attributes between launched processes over a /dev/shm device ({@link IntercommunicatorPeer}).
 */
class IntercommunicatorProcessesTest {
    @Test
    void vectorCollectivesAndReduceScatterCrossBetweenProcesses() throws Exception {
        List<String> out = PeerProcesses.run("intercomm", IntercommunicatorPeer.class, new int[3],
                (device, rank, jobKey) -> List.of(device.toString(), Integer.toString(rank), jobKey));
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(1, PeerProcesses.value(out.get(rank), "checked"), out.get(rank));
        }
    }
}
