package org.lockstep.pcie.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.lockstep.pcie.mapped.MappedTestSupport.assertDeviceError;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceCapability;

/**
 * What a path is, and the clear errors for paths that are no device. DAX and BAR paths are not on
 * this machine: their detection is tested against a small sysfs tree standing in for /sys, and a
 * BAR-shaped regular file in that tree is mapped for real to exercise the BAR device's behaviour.
 */
class DevicePathsTest {
    private static final long CAPACITY = 64 * 1024;
    private static final String PCI_FUNCTION = "0000:00:01.0";

    @TempDir
    Path scratch;

    // ---- paths that are no device

    @Test
    void aMissingFileInAMissingDirectoryIsAClearError() {
        Path path = scratch.resolve("no-such-dir/device");
        assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(path, CAPACITY), path.toString(),
                "directory " + path.getParent() + " does not exist");
    }

    @Test
    void aMissingFileIsAnErrorWhenCreatingIsOff() {
        Path path = scratch.resolve("absent");
        assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(path, CAPACITY, MappedDeviceOptions.CREATE, "false"),
                path.toString(), "does not exist", "create=false");
        assertFalse(Files.exists(path));
    }

    @Test
    void aDirectoryIsAClearError() {
        assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(scratch, CAPACITY), scratch.toString(), "is a directory");
    }

    @Test
    void devNullIsACharacterDeviceButNoDaxDevice() {
        assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(Path.of("/dev/null"), CAPACITY),
                "'/dev/null'", "character device 1:3", "subsystem 'mem'", "not a DAX device");
    }

    @Test
    void aProcFileIsRefused() {
        assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(Path.of("/proc/self/status"), CAPACITY),
                "/proc/self/status", "proc pseudo file system");
    }

    @Test
    void aBlockDeviceIsRefusedWithAHint() throws IOException {
        Optional<Path> block;
        try (Stream<Path> devices = Files.list(Path.of("/dev"))) {
            block = devices.filter(p -> isBlockDevice(p)).findFirst();
        }
        assumeTrue(block.isPresent(), "no block device in /dev");
        assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(block.get(), CAPACITY), block.get().toString(),
                "is a block device", "mount -o dax");
    }

    @Test
    void aFifoIsRefused() throws Exception {
        Path fifo = scratch.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo is not available");
        assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(fifo, CAPACITY), fifo.toString(),
                "neither a regular file, a DAX character device nor a PCI resource file");
    }

    @Test
    void deviceNumbersDecodeAsGlibcDoes() throws IOException {
        long rdev = (Long) Files.getAttribute(Path.of("/dev/null"), "unix:rdev");
        assertEquals(1, DevicePaths.major(rdev));
        assertEquals(3, DevicePaths.minor(rdev));
        long large = (0x1234L << 32 & 0xfffff00000000000L) | (0xabcL << 8) | (0x56789L << 12 & 0xffffff00000L) | 0x9aL;
        assertEquals(((0x1234L << 32 & 0xfffff00000000000L) >>> 32) | 0xabc, DevicePaths.major(large));
        assertEquals(0x9a | ((0x56789L << 12 & 0xffffff00000L) >>> 12), DevicePaths.minor(large));
    }

    // ---- PCI BAR resource files, against a stand-in sysfs

    @Test
    void barResourceFilesAreRecognisedByTheirRealPathBelowSysfs() throws IOException {
        Path sysfs = fakeSysfs();
        DevicePaths paths = new DevicePaths(sysfs);
        Path function = sysfs.resolve("devices/pci0000:00/" + PCI_FUNCTION);
        Path bridged = Files.createDirectories(sysfs.resolve("devices/pci0000:00/0000:00:1c.0/0000:02:00.0"));
        Path vmd = Files.createDirectories(sysfs.resolve("devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:06.0"));
        for (Path bar : new Path[] {function.resolve("resource0"), function.resolve("resource2_wc"), bridged.resolve("resource4"),
                vmd.resolve("resource1"), sysfs.resolve("bus/pci/devices/" + PCI_FUNCTION + "/resource0")}) {
            touch(bar);
            assertTrue(paths.isBarResource(bar.toRealPath()), bar + " is a BAR resource file");
        }
        for (Path other : new Path[] {function.resolve("config"), function.resolve("resource"), function.resolve("rom"),
                Files.createDirectories(scratch.resolve("elsewhere/" + PCI_FUNCTION)).resolve("resource0")}) {
            touch(other);
            assertFalse(paths.isBarResource(other.toRealPath()), other + " is not a BAR resource file");
        }
    }

    @Test
    void aBarIsMappedWithoutAtomicsAndWithoutPersistence() throws IOException {
        Path sysfs = fakeSysfs();
        Path bar = sysfs.resolve("bus/pci/devices/" + PCI_FUNCTION + "/resource0"); // through the bus symlink, as users name it
        Files.write(bar, new byte[(int) CAPACITY]);
        MappedDeviceProvider provider = new MappedDeviceProvider(sysfs);
        try (MappedDevice device = (MappedDevice) provider.open(MappedTestSupport.spec(bar, CAPACITY / 2))) {
            assertEquals(DeviceKind.PCI_BAR, device.kind());
            assertEquals(CAPACITY, device.capacity(), "a BAR is mapped at its size");
            assertEquals(EnumSet.of(DeviceCapability.CROSS_PROCESS), device.capabilities());
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, () -> device.compareAndSetLong(0, 0, 1),
                    "compareAndSetLong", "needs ATOMIC_CAS", "PCI BAR resource file");
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, () -> device.getAndAddLong(8, 1), "getAndAddLong");
            device.putLong(16, 5);
            device.putLongRelease(24, 6);
            device.putLongVolatile(32, 7);
            device.persist(0, CAPACITY);
            assertEquals(5 + 6 + 7, device.getLong(16) + device.getLongAcquire(24) + device.getLongVolatile(32));
        }
        try (MappedDevice device = (MappedDevice) provider.open(MappedTestSupport.spec(bar, CAPACITY,
                MappedDeviceOptions.ATOMICS, "true"))) {
            assertFalse(device.has(DeviceCapability.ATOMIC_CAS), "atomics=true cannot add atomics a BAR lacks");
        }
        assertDeviceError(ErrorClass.DEVICE, () -> provider.open(MappedTestSupport.spec(bar, CAPACITY * 2)),
                "BAR of " + CAPACITY + " bytes", "fewer than the " + CAPACITY * 2);
        assertDeviceError(ErrorClass.ARG, () -> provider.open(MappedTestSupport.spec(bar, CAPACITY,
                MappedDeviceOptions.DELETE_ON_CLOSE, "true")), "applies to regular files only");
        assertTrue(Files.exists(bar));
        Path empty = sysfs.resolve("devices/pci0000:00/" + PCI_FUNCTION + "/resource1");
        touch(empty);
        assertDeviceError(ErrorClass.DEVICE, () -> provider.open(MappedTestSupport.spec(empty, CAPACITY)), "BAR of size 0");
    }

    @Test
    void aMissingBarIsAClearErrorNotACreatedFile() throws IOException {
        Path sysfs = fakeSysfs();
        Path bar = sysfs.resolve("bus/pci/devices/" + PCI_FUNCTION + "/resource5");
        MappedDeviceProvider provider = new MappedDeviceProvider(sysfs);
        assertDeviceError(ErrorClass.DEVICE, () -> provider.open(MappedTestSupport.spec(bar, CAPACITY,
                MappedDeviceOptions.CREATE, "false")), bar.toString(), "does not exist");
    }

    // ---- DAX devices, against a stand-in sysfs

    @Test
    void aCharacterDeviceOfTheDaxSubsystemIsMappedAsDaxAndAnUnmappableOneIsAClearError() throws IOException {
        Path sysfs = fakeSysfs();
        // /dev/null (1:3) posing as a DAX device: classified by sysfs, then its mmap fails as it would for a broken device
        Path node = Files.createDirectories(sysfs.resolve("devices/platform/e820_pmem/ndbus0/region0/dax0.0/dax0.0"));
        Files.writeString(node.resolve("size"), "2097152\n");
        Path daxClass = Files.createDirectories(sysfs.resolve("class/dax"));
        Files.createSymbolicLink(node.resolve("subsystem"), daxClass);
        Files.createDirectories(sysfs.resolve("dev/char"));
        Files.createSymbolicLink(sysfs.resolve("dev/char/1:3"), node);
        DevicePaths paths = new DevicePaths(sysfs);
        DevicePaths.Classified classified = paths.classify(Path.of("/dev/null"), false);
        assertEquals(DeviceKind.DAX_DEVICE, classified.kind());
        assertEquals(Optional.of(node.toRealPath()), classified.sysfsNode().map(DevicePathsTest::real));

        MappedDeviceProvider provider = new MappedDeviceProvider(sysfs);
        assertDeviceError(ErrorClass.DEVICE, () -> provider.open(MappedTestSupport.spec(Path.of("/dev/null"), 4096)),
                "'/dev/null'", "cannot be mapped", "ENODEV");
        assertDeviceError(ErrorClass.DEVICE, () -> provider.open(MappedTestSupport.spec(Path.of("/dev/null"), 1L << 30)),
                "has 2097152 bytes, fewer than the " + (1L << 30));
        Files.delete(node.resolve("size"));
        assertDeviceError(ErrorClass.DEVICE, () -> provider.open(MappedTestSupport.spec(Path.of("/dev/null"), 4096)),
                "no readable size");
    }

    @Test
    void thePersistenceDomainIsFoundInTheRegionAboveADaxDevice() throws IOException {
        Path sysfs = fakeSysfs();
        DevicePaths paths = new DevicePaths(sysfs);
        Path region = Files.createDirectories(sysfs.resolve("devices/platform/e820_pmem/ndbus0/region0"));
        Path node = Files.createDirectories(region.resolve("dax0.0/dax0.0"));
        assertEquals(Optional.empty(), paths.persistenceDomain(node), "no nd region: volatile memory");
        Files.writeString(region.resolve("persistence_domain"), "memory_controller\n");
        assertEquals(Optional.of("memory_controller"), paths.persistenceDomain(node));
        Files.writeString(region.resolve("persistence_domain"), "cpu_cache\n");
        assertEquals(Optional.of(DeviceMapper.CPU_CACHE_DOMAIN), paths.persistenceDomain(node));
        Files.writeString(region.resolve("persistence_domain"), "\n");
        assertEquals(Optional.empty(), paths.persistenceDomain(node), "an empty domain is none");
        Files.writeString(sysfs.getParent().resolve("persistence_domain"), "cpu_cache\n");
        Files.delete(region.resolve("persistence_domain"));
        assertEquals(Optional.empty(), paths.persistenceDomain(node), "nothing above the sysfs root counts");
    }

    // ---- helpers

    /** A sysfs tree with one PCI function, reachable as /sys has it: bus/pci/devices/<address> links to devices/pci…/<address>. */
    private Path fakeSysfs() throws IOException {
        Path sysfs = Files.createDirectories(scratch.resolve("sys"));
        Path function = Files.createDirectories(sysfs.resolve("devices/pci0000:00/" + PCI_FUNCTION));
        Path bus = Files.createDirectories(sysfs.resolve("bus/pci/devices"));
        Files.createSymbolicLink(bus.resolve(PCI_FUNCTION), bus.relativize(function));
        return sysfs;
    }

    private static void touch(Path path) throws IOException {
        Files.createDirectories(path.getParent());
        if (!Files.exists(path)) {
            Files.createFile(path);
        }
    }

    private static Path real(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean isBlockDevice(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            return (mode & 0_170000) == 0_060000;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
