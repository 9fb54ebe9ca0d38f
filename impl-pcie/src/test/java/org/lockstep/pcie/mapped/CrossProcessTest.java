package org.lockstep.pcie.mapped;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mapped.CrossProcessPeer.COUNTER;
import static org.lockstep.pcie.mapped.CrossProcessPeer.FLAG;
import static org.lockstep.pcie.mapped.CrossProcessPeer.PAYLOAD;
import static org.lockstep.pcie.mapped.CrossProcessPeer.PAYLOAD_BYTES;
import static org.lockstep.pcie.mapped.CrossProcessPeer.READY;
import static org.lockstep.pcie.mapped.CrossProcessPeer.REPLIED;
import static org.lockstep.pcie.mapped.CrossProcessPeer.REPLY;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.lockstep.pcie.PeerJvm;

/**
 * Two JVM processes map the same /dev/shm file: release/acquire publication and compare-and-set
 * work across them. The second process runs {@link CrossProcessPeer} with this JVM's java and
 * module path.
 */
class CrossProcessTest {
    private static final long CAPACITY = 1 << 20;
    private static final int INCREMENTS = 200_000;

    @Test
    void aSecondProcessSeesPublishedWritesAndCompareAndSetIsAtomicAcrossProcesses() throws Exception {
        Path path = MappedTestSupport.shmPath("xproc");
        Path output = Files.createTempFile("lockstep-peer", ".log");
        Process peer = null;
        try (MappedDevice device = MappedTestSupport.open(path, CAPACITY, MappedDeviceOptions.DELETE_ON_CLOSE, "true");
             Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(PAYLOAD_BYTES);
            for (int i = 0; i < PAYLOAD_BYTES; i++) {
                payload.set(ValueLayout.JAVA_BYTE, i, CrossProcessPeer.pattern(i, 1));
            }
            device.write(PAYLOAD, payload, 0, PAYLOAD_BYTES);
            device.putLongRelease(FLAG, CrossProcessPeer.PUBLISHED);

            peer = new ProcessBuilder(PeerJvm.command("64m", CrossProcessPeer.class, path.toString(), Long.toString(CAPACITY),
                    Integer.toString(INCREMENTS))).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            Process started = peer;
            await().atMost(Duration.ofSeconds(60)).until(() -> device.getLongAcquire(READY) == 1 || !started.isAlive());
            assertEquals(1, device.getLongAcquire(READY), () -> "the peer never attached: " + log(output));
            for (int i = 0; i < INCREMENTS; i++) {
                device.getAndAddLong(COUNTER, 1);
            }
            assertTrue(peer.waitFor(60, TimeUnit.SECONDS), () -> "the peer did not finish: " + log(output));
            assertEquals(0, peer.exitValue(), () -> "the peer failed: " + log(output));
            assertEquals(REPLIED, device.getLongAcquire(FLAG));
            assertEquals(2L * INCREMENTS, device.getLongVolatile(COUNTER), "no increment of either process was lost");
            device.read(REPLY, payload, 0, PAYLOAD_BYTES);
            for (int i = 0; i < PAYLOAD_BYTES; i++) {
                assertEquals(CrossProcessPeer.pattern(i, 2), payload.get(ValueLayout.JAVA_BYTE, i), "reply byte " + i);
            }
            String log = log(output);
            assertFalse(log.contains("restricted method"), () -> "native access was not enabled for the module: " + log);
        } finally {
            if (peer != null) {
                peer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(output);
        }
        assertFalse(Files.exists(path), "deleteOnClose removed the device file");
    }

    private static String log(Path output) {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read the peer's output: " + e + ")";
        }
    }
}
