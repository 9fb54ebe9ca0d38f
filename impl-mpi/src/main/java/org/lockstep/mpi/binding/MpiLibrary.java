package org.lockstep.mpi.binding;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.mpi.abi.MpiAbi;
import org.lockstep.mpi.abi.MpichAbi;
import org.lockstep.mpi.abi.OpenMpiAbi;

/**
 * Finds the native MPI library, loads it, and tells its ABI.
 *
 * <p>Which library: the path in {@value #LIBRARY_PROPERTY} (system property, job property or the
 * environment variable {@value #LIBRARY_ENVIRONMENT}) if given; else the library of the launcher
 * that started this process (Open MPI's {@code mpirun} sets {@code OMPI_COMM_WORLD_SIZE}, MPICH's
 * Hydra {@code PMI_SIZE}); else the first of Open MPI ({@value #OPEN_MPI}), MPICH ({@value #MPICH})
 * and the MPI-5 standard ABI ({@value #STANDARD_ABI}) that loads.
 *
 * <p>The library is opened with {@code RTLD_GLOBAL}: Open MPI's components are shared objects that
 * resolve the library's own symbols globally, as a C program linked against it would provide them.
 */
public record MpiLibrary(String path, MpiAbi abi, SymbolLookup symbols, String version) {
    public static final String LIBRARY_PROPERTY = "lockstep.mpi.library";
    public static final String LIBRARY_ENVIRONMENT = "LOCKSTEP_MPI_LIBRARY";
    public static final String OPEN_MPI = "libmpi.so.40";
    public static final String MPICH = "libmpich.so.12";
    public static final String STANDARD_ABI = "libmpi_abi.so";

    private static MpiLibrary loaded;

    private static final int RTLD_NOW = 0x2;
    private static final int RTLD_GLOBAL = 0x100;
    private static final int MAX_LIBRARY_VERSION_STRING = 8192;

    /** Loads the library for this process (once: MPI binds one library per process) and returns it. */
    public static synchronized MpiLibrary loadOnce(List<String> candidates) {
        if (loaded == null) {
            loaded = load(candidates);
        }
        return loaded;
    }

    /** The library {@link #loadOnce} loaded. */
    static synchronized MpiLibrary loaded() {
        if (loaded == null) {
            throw new LockstepException(ErrorClass.INTERN, "the MPI library is used before it was loaded");
        }
        return loaded;
    }

    /** The library names to try, in order, for this process's environment and an explicit path (null if none). */
    public static List<String> candidates(String explicitPath, Map<String, String> env) {
        if (explicitPath != null && !explicitPath.isBlank()) {
            return List.of(explicitPath.trim());
        }
        Set<String> names = new LinkedHashSet<>();
        if (env.containsKey("OMPI_COMM_WORLD_SIZE")) {
            names.add(OPEN_MPI);
        } else if (env.containsKey("PMI_SIZE") || env.containsKey("PMI_RANK")) {
            names.add(MPICH);
        }
        names.add(OPEN_MPI);
        names.add(MPICH);
        names.add(STANDARD_ABI);
        return List.copyOf(names);
    }

    /**
     * Loads the first candidate that opens and identifies its ABI.
     *
     * @throws LockstepException {@link ErrorClass#NO_PROVIDER} naming every library tried and why it failed
     */
    public static MpiLibrary load(List<String> candidates) {
        List<String> failures = new ArrayList<>();
        for (String name : candidates) {
            Optional<SymbolLookup> opened = open(name, failures);
            if (opened.isPresent()) {
                return identify(name, opened.get());
            }
        }
        throw new LockstepException(ErrorClass.NO_PROVIDER, "no MPI library found: " + String.join("; ", failures)
                + " (install Open MPI or MPICH, or name the library with -D" + LIBRARY_PROPERTY + "=PATH)");
    }

    /** Tells the ABI of an opened library. */
    static MpiLibrary identify(String name, SymbolLookup library) {
        if (library.find("MPI_Init_thread").isEmpty()) {
            throw new LockstepException(ErrorClass.NO_PROVIDER, name + " is not an MPI library (it has no MPI_Init_thread)");
        }
        String version = libraryVersion(library);
        if (library.find(OpenMpiAbi.SIGNATURE_SYMBOL).isPresent()) {
            return new MpiLibrary(name, new OpenMpiAbi(library), library, version);
        }
        if (library.find("MPI_Abi_get_version").isPresent()) {
            throw new LockstepException(ErrorClass.NO_PROVIDER, name + " has the MPI-5 standard ABI (" + firstLine(version)
                    + "), which this provider does not bind yet; use the library's native ABI (Open MPI's " + OPEN_MPI
                    + " or MPICH's " + MPICH + ")");
        }
        if (version.contains("MPICH") || version.contains("Intel(R) MPI") || version.contains("MVAPICH")) {
            return new MpiLibrary(name, new MpichAbi(), library, version);
        }
        throw new LockstepException(ErrorClass.NO_PROVIDER, name + " is an MPI library of an unknown ABI (\""
                + firstLine(version) + "\"); known: Open MPI 4/5 and MPICH 3.1-4.x and its derivatives");
    }

    private static Optional<SymbolLookup> open(String name, List<String> failures) {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        MethodHandle dlopen = linker.downcallHandle(libc.find("dlopen").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        MethodHandle dlsym = linker.downcallHandle(libc.find("dlsym").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        MethodHandle dlerror = linker.downcallHandle(libc.find("dlerror").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS));
        MemorySegment handle;
        try (Arena arena = Arena.ofConfined()) {
            handle = (MemorySegment) dlopen.invokeExact(arena.allocateFrom(name), RTLD_NOW | RTLD_GLOBAL);
            if (handle.equals(MemorySegment.NULL)) {
                MemorySegment message = (MemorySegment) dlerror.invokeExact();
                failures.add(name + ": " + (message.equals(MemorySegment.NULL) ? "cannot be opened"
                        : message.reinterpret(4096).getString(0)));
                return Optional.empty();
            }
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "dlopen of " + name + " failed: " + t, t);
        }
        MemorySegment library = handle;
        return Optional.of(symbol -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment address = (MemorySegment) dlsym.invokeExact(library, arena.allocateFrom(symbol));
                return address.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(address);
            } catch (Throwable t) {
                throw new LockstepException(ErrorClass.INTERN, "dlsym of " + symbol + " failed: " + t, t);
            }
        });
    }

    /** {@code MPI_Get_library_version}, which MPI allows before {@code MPI_Init}. */
    private static String libraryVersion(SymbolLookup library) {
        Optional<MemorySegment> function = library.find("MPI_Get_library_version");
        if (function.isEmpty()) {
            return "no MPI_Get_library_version";
        }
        MethodHandle call = Linker.nativeLinker().downcallHandle(function.get(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(MAX_LIBRARY_VERSION_STRING);
            MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
            int rc = (int) call.invokeExact(text, length);
            if (rc != 0) {
                return "MPI_Get_library_version failed with " + rc;
            }
            int n = Math.min(Math.max(length.get(ValueLayout.JAVA_INT, 0), 0), MAX_LIBRARY_VERSION_STRING);
            return new String(text.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8).trim();
        } catch (Throwable t) {
            throw new LockstepException(ErrorClass.INTERN, "MPI_Get_library_version failed: " + t, t);
        }
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        return (end < 0 ? text : text.substring(0, end)).trim();
    }
}
