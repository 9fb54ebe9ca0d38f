package org.lockstep.mpi.hybrid;

import java.lang.foreign.MemorySegment;
import java.util.Map;

import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;
import org.lockstep.mpi.EngineChecks;
import org.lockstep.mpi.comm.MpiCommunicator;
import org.lockstep.mpi.comm.MpiSession;
import org.lockstep.spi.messaging.AttachableProvider;
import org.lockstep.spi.messaging.AttachedRank;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * Provider {@value #NAME}: ranks on one host talk through the shared device (the mailbox transport,
 * found by name through the SPI), ranks on different hosts through native MPI. Started like the
 * {@code mpi} provider (under {@code mpirun}, {@code srun}, or {@code lockstep run --engine mpi}).
 *
 * <p>Hosts are what {@code MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)} says, unless the job pretends
 * (for tests on one machine): {@value #HOST_OF_PROPERTY}{@code =K} puts ranks {@code [hK, (h+1)K)}
 * on host {@code h}; the environment variable {@value #HOST_ENVIRONMENT} names each rank's host.
 * Each host's device is its own file, {@code /dev/shm/lockstep-<job>-h<host>}, removed when its last
 * rank leaves.
 */
public final class HybridProvider implements LockstepProvider {
    public static final String NAME = "hybrid";
    public static final String HOST_OF_PROPERTY = "lockstep.mpi.hostOf";
    public static final String HOST_ENVIRONMENT = "LOCKSTEP_HOST";
    /** The provider that carries messages within a host. */
    public static final String LOCAL_PROPERTY = "lockstep.mpi.local";
    private static final String DEFAULT_LOCAL = "mailbox";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "the shared device within a host, native MPI between hosts; two-level collectives";
    }

    @Override
    public void runInThreads(JobOptions options, RankProgram program) {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, "the " + NAME + " provider runs one rank per process: "
                + "start the program under mpirun -np " + options.ranks() + " (or lockstep run --engine mpi -o lockstep.provider=hybrid)");
    }

    @Override
    public void runAttached(JobOptions options, LaunchEnvironment launch, RankProgram program) {
        MpiSession session = MpiSession.start(options, System.getenv());
        MpiCommunicator world = session.world();
        EngineChecks.check(world, launch, System.getenv());
        int host = hostOf(world, options, System.getenv());
        MpiCommunicator hostRanks = (MpiCommunicator) world.split(host, world.rank());
        long jobKey = agreedJobKey(world, launch.jobKey());
        // pretend hosts share one machine's cores: waits must know every rank there, not only their host's
        int ranksOnMachine = IdleStrategy.Policy.ranksOnThisHost(options, ranksOnMachine(world));
        AttachedRank local = attachLocal(options.with(IdleStrategy.RANKS_ON_HOST_PROPERTY, Integer.toString(ranksOnMachine)),
                hostRanks, host, jobKey);
        HybridCommunicator hybrid;
        try {
            hybrid = new HybridCommunicator(world, local.communicator(), host, IdleStrategy.Policy.forRanksOnThisHost(ranksOnMachine));
        } catch (RuntimeException e) {
            local.failed(e);
            throw e;
        }
        try {
            program.run(hybrid);
        } catch (Throwable t) {
            local.failed(t); // no MPI_Finalize: the launcher sees a rank that ended without it and stops the others
            if (t instanceof RuntimeException e) {
                throw e;
            }
            if (t instanceof Error e) {
                throw e;
            }
            throw new LockstepException(ErrorClass.OTHER, "rank " + world.rank() + " failed: " + t, t);
        }
        local.close();
        hostRanks.close();
        session.finish();
    }

    /** This rank's host: pretended by property or environment, else the library's shared-memory domain. */
    static int hostOf(MpiCommunicator world, JobOptions options, Map<String, String> env) {
        String pretend = options.property(HOST_OF_PROPERTY).orElse(System.getProperty(HOST_OF_PROPERTY));
        long key;
        if (pretend != null) {
            key = world.rank() / JobOptions.positiveInt(HOST_OF_PROPERTY, pretend, "ranks per host");
        } else if (env.containsKey(HOST_ENVIRONMENT)) {
            key = env.get(HOST_ENVIRONMENT).hashCode() & 0x7fffffffL;
        } else {
            MpiCommunicator shared = world.splitShared();
            long[] leader = {world.rank()};
            shared.bcast(MemorySegment.ofArray(leader), 1, Datatype.LONG, 0);
            shared.close();
            key = leader[0];
        }
        // Dense indices in order of each host's first rank.
        long[] keys = new long[world.size()];
        world.allgather(MemorySegment.ofArray(new long[] {key}), 1, Datatype.LONG, MemorySegment.ofArray(keys));
        java.util.List<Long> order = new java.util.ArrayList<>();
        for (long k : keys) {
            if (!order.contains(k)) {
                order.add(k);
            }
        }
        return order.indexOf(key);
    }

    /** How many ranks of the job share this rank's machine (its shared-memory domain). */
    private static int ranksOnMachine(MpiCommunicator world) {
        MpiCommunicator shared = world.splitShared();
        int ranks = shared.size();
        shared.close();
        return ranks;
    }

    private static long agreedJobKey(MpiCommunicator world, long mine) {
        long[] key = {mine};
        world.bcast(MemorySegment.ofArray(key), 1, Datatype.LONG, 0);
        return key[0];
    }

    /** The local transport among this host's ranks, found by name: its own device file, named by job and host. */
    private static AttachedRank attachLocal(JobOptions options, MpiCommunicator hostRanks, int host, long jobKey) {
        String name = options.property(LOCAL_PROPERTY).orElse(DEFAULT_LOCAL);
        LockstepProvider provider = Lockstep.find(name).orElseThrow(() -> new LockstepException(ErrorClass.NO_PROVIDER,
                "the hybrid provider needs the local transport '" + name + "', which is not installed; installed: "
                        + Lockstep.providers().keySet()));
        if (!(provider instanceof AttachableProvider attachable)) {
            throw new LockstepException(ErrorClass.NO_PROVIDER, "provider '" + name + "' cannot serve as the transport within a host");
        }
        long hostKey = jobKey ^ (0x9E3779B97F4A7C15L * (host + 1));
        String device = "/dev/shm/lockstep-" + Long.toHexString(jobKey) + "-h" + host;
        LaunchEnvironment within = new LaunchEnvironment(hostRanks.rank(), hostRanks.size(), device, hostKey, NAME);
        JobOptions localOptions = new JobOptions(hostRanks.size(), options.properties());
        if ("emulated".equals(localOptions.property("lockstep.device").orElse(null))) {
            localOptions = localOptions.with("lockstep.device", "mapped"); // the host's ranks are processes: they share a file
        }
        return attachable.attach(localOptions, within);
    }
}
