package org.lockstep.tools;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobAbortedError;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;

/**
 * Runs a program's {@code main(String[])} as every rank of a job whose ranks are threads of this
 * JVM ({@code lockstep run --threads}): {@link Lockstep#run} gives each rank thread its world,
 * and the rank calls {@code main} in a {@link RankClassLoader} of its own, so that the
 * program's statics, and the {@code mpi} bindings' {@code MPI.COMM_WORLD}, are per rank. The
 * bindings' {@code MPI.Init} finds the rank's world as {@link Lockstep#currentWorld()}.
 *
 * <p>A rank that throws fails the job as a failed process; a rank that calls {@code System.exit}
 * or aborts the job ({@code MPI_Abort}) ends the whole job, every rank being a thread of this JVM.
 */
final class ThreadRanks {
    /** Set by the first rank to abort: the JVM is ending. */
    private static final java.util.concurrent.atomic.AtomicBoolean ENDING = new java.util.concurrent.atomic.AtomicBoolean();
    private final List<Path> classPath;
    private final String mainClass;
    private final List<String> arguments;

    ThreadRanks(List<Path> classPath, String mainClass, List<String> arguments) {
        this.classPath = List.copyOf(classPath);
        this.mainClass = mainClass;
        this.arguments = List.copyOf(arguments);
    }

    /** Runs the job; a rank's failure comes back as the {@link LockstepException} that {@link Lockstep#run} throws. */
    void run(JobOptions options) {
        URL[] urls = urls();
        ClassLoader parent = ThreadRanks.class.getClassLoader();
        try (RankClassLoader probe = new RankClassLoader(-1, urls, parent)) {
            mainOf(probe); // a missing class or main fails here, once, before any rank starts
        } catch (java.io.IOException e) {
            throw new LockstepException(ErrorClass.OTHER, "cannot close a class loader: " + e);
        }
        Lockstep.run(options, world -> {
            try (RankClassLoader loader = new RankClassLoader(world.rank(), urls, parent)) {
                Thread thread = Thread.currentThread();
                ClassLoader previous = thread.getContextClassLoader();
                thread.setContextClassLoader(loader);
                try {
                    mainOf(loader).invokeExact(arguments.toArray(new String[0]));
                } catch (JobAbortedError aborted) {
                    endJob(aborted);
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new LockstepException(ErrorClass.OTHER, "rank " + world.rank() + "'s main failed: " + t, t);
                } finally {
                    thread.setContextClassLoader(previous);
                }
            }
        });
    }

    /**
     * A rank aborted the job ({@code MPI_Abort}, {@link Lockstep#abort}): this JVM is the whole job,
     * so it ends now with the abort's code, after what the ranks printed; the other ranks may be
     * in calls or loops of their own that nothing else would end.
     */
    private static void endJob(JobAbortedError aborted) {
        if (ENDING.compareAndSet(false, true)) { // ranks that abort at once: the first one's line
            System.err.println("lockstep run: " + aborted.getMessage() + "; ending every rank");
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().exit(aborted.exitCode());
    }

    /**
     * The program's {@code static void main(String[])}, found as the {@code java} launcher finds it:
     * in a class of any access, the method not private (a package-private class's public main, as
     * {@code java Main} runs it).
     */
    private MethodHandle mainOf(ClassLoader loader) {
        try {
            Class<?> main = Class.forName(mainClass, false, loader);
            Method method = mainMethod(main);
            if (method == null || !Modifier.isStatic(method.getModifiers()) || Modifier.isPrivate(method.getModifiers())
                    || method.getReturnType() != void.class) {
                throw new LockstepException(ErrorClass.ARG, mainClass + " has no static void main(String[]) that is not private");
            }
            method.setAccessible(true); // the program's classes are in an unnamed module, open to this one
            return MethodHandles.lookup().unreflect(method);
        } catch (ClassNotFoundException e) {
            throw new LockstepException(ErrorClass.ARG, "no class " + mainClass + " on the class path " + classPath);
        } catch (IllegalAccessException | RuntimeException e) {
            if (e instanceof LockstepException l) {
                throw l;
            }
            throw new LockstepException(ErrorClass.ARG, mainClass + "'s main cannot be called: " + e);
        }
    }

    /** {@code main(String[])} declared by {@code type} or inherited from a superclass; null if none. */
    private static Method mainMethod(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredMethod("main", String[].class);
            } catch (NoSuchMethodException e) {
                // look in the superclass
            }
        }
        return null;
    }

    /** The program's class path, then the jar of the {@code mpi} bindings (each rank loads its own copy). */
    private URL[] urls() {
        List<URL> urls = new ArrayList<>();
        try {
            for (Path p : classPath) {
                if (!Files.exists(p)) {
                    throw new LockstepException(ErrorClass.ARG, "class path entry " + p + " does not exist");
                }
                urls.add(p.toUri().toURL());
            }
            urls.add(mpiBindings().toUri().toURL());
        } catch (MalformedURLException e) {
            throw new LockstepException(ErrorClass.ARG, "bad class path entry: " + e.getMessage());
        }
        return urls.toArray(new URL[0]);
    }

    /** Where the {@code mpi} package's classes are: its jar, or its classes directory in a build. */
    static Path mpiBindings() {
        try {
            return Path.of(mpi.MPI.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new LockstepException(ErrorClass.INTERN, "cannot locate the mpi bindings' classes: " + e);
        }
    }
}
