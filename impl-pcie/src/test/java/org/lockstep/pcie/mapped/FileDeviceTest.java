package org.lockstep.pcie.mapped;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mapped.MappedTestSupport.assertDeviceError;
import static org.lockstep.pcie.mapped.MappedTestSupport.open;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceCapability;

/** Regular files, in /dev/shm and on a disk file system, created and existing. */
class FileDeviceTest {
    private static final long CAPACITY = 1 << 20;
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");

    @TempDir
    Path disk;

    private final List<Path> shmFiles = new ArrayList<>();

    private Path shm(String label) {
        Path path = MappedTestSupport.shmPath(label);
        shmFiles.add(path);
        return path;
    }

    @AfterEach
    void removeShmFiles() throws IOException {
        for (Path path : shmFiles) {
            MappedTestSupport.deleteIfExists(path);
            try (Stream<Path> leftovers = Files.list(MappedTestSupport.SHM)) {
                assertEquals(List.of(), leftovers.filter(p -> p.getFileName().toString()
                        .startsWith("." + path.getFileName() + ".creating")).toList(), "temporary creation files left behind");
            }
        }
    }

    @Test
    void aMissingShmFileIsCreatedOwnerOnlyFullyAllocatedAndNotPersistent() throws IOException {
        Path path = shm("create");
        try (MappedDevice device = open(path, CAPACITY)) {
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                    Files.getPosixFilePermissions(path));
            assertEquals(CAPACITY, Files.size(path));
            assertEquals(CAPACITY, device.capacity());
            assertEquals(DeviceKind.REGULAR_FILE, device.kind());
            assertEquals(EnumSet.of(DeviceCapability.CROSS_PROCESS, DeviceCapability.ATOMIC_CAS), device.capabilities(),
                    "/dev/shm is RAM: not PERSISTENT");
            assertTrue(device.description().contains("tmpfs"), device.description());
            assertEquals(path.toString(), device.name());
            assertEquals(0, device.getLong(CAPACITY - Long.BYTES), "a new device reads as zeros");
        }
        assertTrue(MappedTestSupport.allocatedBytes(path) >= CAPACITY, "every block of a created file is allocated");
        assertEquals(CAPACITY, Files.size(path), "closing without deleteOnClose keeps the file");
    }

    @Test
    void writesReachTheFileAndAnExistingFileIsMappedAtItsOwnSize() throws IOException {
        Path path = shm("existing");
        try (MappedDevice device = open(path, CAPACITY)) {
            device.putLong(128, 0x1122334455667788L);
            device.putLongRelease(CAPACITY - Long.BYTES, 42);
            device.persist(0, CAPACITY);
        }
        ByteBuffer head = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder());
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.read(head, 128);
        }
        assertEquals(0x1122334455667788L, head.flip().getLong(), "the file holds what the device wrote");
        try (MappedDevice again = open(path, CAPACITY / 2, MappedDeviceOptions.CREATE, "false")) {
            assertEquals(CAPACITY, again.capacity(), "an existing file is mapped at its own size, not the spec's");
            assertEquals(0x1122334455667788L, again.getLong(128));
            assertEquals(42, again.getLongAcquire(CAPACITY - Long.BYTES));
        }
    }

    @Test
    void anExistingFileSmallerThanAskedIsAClearErrorAndLeftAsItWas() throws IOException {
        Path small = shm("small");
        Files.write(small, new byte[4096]);
        Files.setPosixFilePermissions(small, PRIVATE);
        assertDeviceError(ErrorClass.DEVICE, () -> open(small, CAPACITY), small.toString(), "has 4096 bytes",
                "fewer than the " + CAPACITY);
        assertEquals(4096, Files.size(small), "a too-small file is left as it was, never grown");
    }

    @Test
    void anExistingEmptyFileIsAllocatedToTheCapacity() throws IOException {
        Path empty = shm("empty");
        Files.createFile(empty, PosixFilePermissions.asFileAttribute(PRIVATE));
        try (MappedDevice device = open(empty, CAPACITY)) {
            assertEquals(CAPACITY, device.capacity());
            assertEquals(CAPACITY, Files.size(empty));
            assertFalse(device.createdFile(), "the file existed");
        }
        assertTrue(MappedTestSupport.allocatedBytes(empty) >= CAPACITY, "every block of it is allocated");
    }

    @Test
    void aSparseExistingFileIsAllocatedBeforeItIsMapped() throws IOException {
        Path sparse = disk.resolve("sparse.dev");
        try (FileChannel channel = FileChannel.open(sparse, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PRIVATE))) {
            channel.truncate(0).position(CAPACITY - 1).write(ByteBuffer.wrap(new byte[] {7}));
        }
        assertTrue(MappedTestSupport.allocatedBytes(sparse) < CAPACITY, "the test file starts sparse");
        try (MappedDevice device = open(sparse, CAPACITY)) {
            assertTrue(MappedTestSupport.allocatedBytes(sparse) >= CAPACITY, "its holes were allocated");
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment last = arena.allocate(1);
                device.read(CAPACITY - 1, last, 0, 1);
                assertEquals(7, last.get(ValueLayout.JAVA_BYTE, 0), "the existing byte is kept");
            }
        }
    }

    @Test
    void aFileOnADiskFileSystemIsPersistentAndPersistWritesItBack() throws IOException {
        Path path = disk.resolve("device.dev");
        String fileSystem = Files.getFileStore(disk).type();
        try (MappedDevice device = open(path, CAPACITY)) {
            boolean expectPersistent = !DevicePaths.VOLATILE_FILE_SYSTEMS.contains(fileSystem);
            assertEquals(expectPersistent, device.has(DeviceCapability.PERSISTENT), fileSystem + ": " + device.description());
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment data = arena.allocate(10_000);
                for (int i = 0; i < data.byteSize(); i++) {
                    data.set(ValueLayout.JAVA_BYTE, i, (byte) i);
                }
                device.write(5000, data, 0, data.byteSize()); // spans pages, not aligned
                device.persist(5000, data.byteSize());
                device.persist(CAPACITY - 1, 1);
                device.persist(0, 0);
            }
            assertEquals(3, device.statistics().persists());
            assertEquals(10_001, device.statistics().bytesPersisted());
        }
        byte[] file = Files.readAllBytes(path);
        byte[] expected = new byte[10_000];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = (byte) i;
        }
        byte[] actual = new byte[10_000];
        System.arraycopy(file, 5000, actual, 0, actual.length);
        assertArrayEquals(expected, actual);
    }

    @Test
    void deleteOnCloseRemovesTheFileAndOnlyThen() {
        Path path = shm("delete");
        MappedDevice device = open(path, CAPACITY, MappedDeviceOptions.DELETE_ON_CLOSE, "true");
        assertTrue(Files.exists(path));
        device.putLong(0, 1);
        device.close();
        assertFalse(Files.exists(path), "deleteOnClose=true removes the file");
        device.close(); // a second close does nothing (and does not fail on the missing file)
    }

    @Test
    void twoMappingsOfOneFileInOneProcessShareTheBytes() {
        Path path = shm("twice");
        try (MappedDevice first = open(path, CAPACITY); MappedDevice second = open(path, CAPACITY)) {
            first.putLongRelease(64, 99);
            assertEquals(99, second.getLongAcquire(64));
            assertTrue(second.compareAndSetLong(64, 99, 100));
            assertFalse(first.compareAndSetLong(64, 99, 101), "the CAS through the other mapping is visible");
            assertEquals(100, first.getAndAddLong(64, 5));
            assertEquals(105, second.getLongVolatile(64));
        }
    }

    @Test
    void atomicsFalseDeclinesCompareAndSet() {
        Path path = shm("noatomics");
        try (MappedDevice device = open(path, CAPACITY, MappedDeviceOptions.ATOMICS, "false")) {
            assertFalse(device.has(DeviceCapability.ATOMIC_CAS));
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, () -> device.compareAndSetLong(0, 0, 1), "ATOMIC_CAS");
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, () -> device.getAndAddLong(0, 1), "ATOMIC_CAS");
            assertEquals(0, device.getLong(0), "a refused CAS writes nothing");
        }
    }
}
