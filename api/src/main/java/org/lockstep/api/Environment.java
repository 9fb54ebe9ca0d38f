package org.lockstep.api;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The environment calls of MPI 4.1 §9 that do not depend on a provider: the wall clock, the
 * processor name, the thread level Lockstep gives, and the environment's hints.
 */
public final class Environment {
    /** MPI's thread support levels ({@code MPI_THREAD_SINGLE} … {@code MPI_THREAD_MULTIPLE}). */
    public enum ThreadLevel { SINGLE, FUNNELED, SERIALIZED, MULTIPLE }

    private static final long ORIGIN = System.nanoTime();

    private Environment() {
    }

    /** Seconds since an arbitrary origin in this process, from a monotonic clock ({@code MPI_Wtime}). */
    public static double wtime() {
        return (System.nanoTime() - ORIGIN) / 1e9;
    }

    /** The resolution of {@link #wtime()} in seconds ({@code MPI_Wtick}): the nanosecond clock's unit. */
    public static double wtick() {
        return 1e-9;
    }

    /** The name of the host this process runs on ({@code MPI_Get_processor_name}). */
    public static String processorName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String host = System.getenv("HOSTNAME");
            return host == null ? "localhost" : host;
        }
    }

    /**
     * The thread level every provider gives ({@code MPI_Query_thread}): a communicator is used by
     * one thread at a time, any thread ({@link ThreadLevel#SERIALIZED}).
     */
    public static ThreadLevel threadLevel() {
        return ThreadLevel.SERIALIZED;
    }

    /**
     * What this process runs with ({@code MPI_INFO_ENV}, MPI 4.1 §11.2.4): the keys {@code host},
     * {@code arch}, {@code wdir} and {@code thread_level} that MPI reserves for it.
     */
    public static Info info() {
        return Info.EMPTY.with("host", processorName())
                .with("arch", System.getProperty("os.arch"))
                .with("wdir", System.getProperty("user.dir"))
                .with("thread_level", "MPI_THREAD_" + threadLevel().name());
    }
}
