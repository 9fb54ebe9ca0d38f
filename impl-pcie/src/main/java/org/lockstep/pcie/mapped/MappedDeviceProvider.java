package org.lockstep.pcie.mapped;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.DeviceProvider;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The device provider {@code mapped}: maps the spec's path with the FFM API into a
 * {@link MappedDevice}. What the path is decides how it is mapped and what the device can do:
 *
 * <table>
 *   <caption>Kinds of path</caption>
 *   <tr><th>path</th><th>mapped with</th><th>capabilities</th><th>persist</th></tr>
 *   <tr><td>regular file on a disk (or DAX) file system</td><td>{@code mmap MAP_SHARED}</td>
 *       <td>CROSS_PROCESS, ATOMIC_CAS, PERSISTENT</td><td>{@code msync(MS_SYNC)} of the pages</td></tr>
 *   <tr><td>regular file on tmpfs ({@code /dev/shm}), ramfs, hugetlbfs</td><td>{@code mmap MAP_SHARED}</td>
 *       <td>CROSS_PROCESS, ATOMIC_CAS</td><td>full fence (RAM: nothing survives power loss)</td></tr>
 *   <tr><td>{@code /dev/daxX.Y}</td><td>{@code mmap MAP_SHARED_VALIDATE|MAP_SYNC}, else {@code MAP_SHARED}</td>
 *       <td>CROSS_PROCESS, ATOMIC_CAS, PERSISTENT only with MAP_SYNC and persistence domain {@code cpu_cache}</td>
 *       <td>full fence</td></tr>
 *   <tr><td>{@code /sys/bus/pci/devices/<address>/resourceN}</td><td>{@code mmap MAP_SHARED}, {@code O_SYNC}</td>
 *       <td>CROSS_PROCESS</td><td>full fence</td></tr>
 * </table>
 *
 * <p>A missing path becomes a regular file of the spec's capacity, mode 0600, fully allocated
 * before it appears under its name (so a full file system is a clear error naming the path, the
 * size and the space available, never a SIGBUS later, and no process sees it half made). An
 * existing file or device is mapped at its own size, which must be at least the spec's capacity;
 * an existing empty file (a launcher's claim on the path) is allocated to the capacity. A regular
 * file is opened only if it is not a symbolic link, belongs to this process's user and is private
 * to it (mode 0600, see {@link PrivateFile}); anything else is refused with the reason, untouched.
 * Options: {@link MappedDeviceOptions}.
 *
 * <p>The module needs native access: run with {@code --enable-native-access=org.lockstep.pcie}
 * (on the class path: {@code ALL-UNNAMED}).
 */
public final class MappedDeviceProvider implements DeviceProvider {
    /** The provider name a {@link DeviceSpec} uses. */
    public static final String NAME = "mapped";

    private final DevicePaths paths;
    private final DeviceMapper mapper;

    /** The provider over this machine's {@code /sys}. */
    public MappedDeviceProvider() {
        this(Path.of("/sys"));
    }

    /** A provider that reads device information from {@code sysfs} instead of {@code /sys} (tests). */
    MappedDeviceProvider(Path sysfs) {
        this.paths = new DevicePaths(sysfs);
        this.mapper = new DeviceMapper(paths);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "maps a file (also in /dev/shm), a DAX device /dev/daxX.Y or a PCI BAR resource file (options: "
                + String.join(", ", MappedDeviceOptions.KEYS) + ")";
    }

    @Override
    public ExternalMemory open(DeviceSpec spec) {
        String pathText = spec.path().orElseThrow(() -> new DeviceException(ErrorClass.ARG,
                "mapped device: the spec names no path (a file, e.g. in /dev/shm, a DAX device /dev/daxX.Y"
                        + " or a PCI resource file)"));
        MappedDeviceOptions options = MappedDeviceOptions.parse(spec.options());
        if (!Posix.isSupportedPlatform()) {
            throw new DeviceException(ErrorClass.UNSUPPORTED_OPERATION, "mapped device '" + pathText
                    + "': supported on Linux x86_64 and aarch64, not " + System.getProperty("os.name") + " "
                    + System.getProperty("os.arch") + " (use the emulated device there)");
        }
        Path path;
        try {
            path = Path.of(pathText).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new DeviceException(ErrorClass.ARG, "mapped device: '" + pathText + "' is not a valid path: " + e.getMessage());
        }
        DevicePaths.Classified target = paths.classify(path, options.create());
        DeviceMapper.Mapping mapping = mapper.map(target, spec.capacity(), options);
        return new MappedDevice(path, spec.blockSize(), mapping, options.deleteOnClose());
    }
}
