package org.lockstep.tools;

import java.net.URL;
import java.net.URLClassLoader;

/**
 * The class loader of one rank when ranks are threads of one JVM: the program's classes and the
 * {@code mpi} bindings are loaded once per rank, from this loader first, so that each rank has
 * its own static state ({@code MPI.COMM_WORLD}, a program's own statics) as it would in a process
 * of its own. Lockstep's API comes from the parent, shared, since the rank's world is one of its
 * objects; so do the JDK's classes.
 */
final class RankClassLoader extends URLClassLoader {
    private static final String SHARED_API = "org.lockstep.api.";

    RankClassLoader(int rank, URL[] urls, ClassLoader parent) {
        super("lockstep-rank-" + rank, urls, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null && !name.startsWith("java.") && !name.startsWith(SHARED_API)) {
                try {
                    loaded = findClass(name);
                } catch (ClassNotFoundException notHere) {
                    // the parent's, then
                }
            }
            if (loaded == null) {
                loaded = super.loadClass(name, false);
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    @Override
    public URL getResource(String name) {
        URL own = findResource(name);
        return own != null ? own : super.getResource(name);
    }
}
