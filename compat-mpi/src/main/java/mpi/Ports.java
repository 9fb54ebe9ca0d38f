package mpi;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Intercommunicator;

/**
 * {@code MPI_Open_port}, {@code MPI_Comm_accept} and {@code MPI_Comm_connect} between two groups of
 * one Lockstep job (a job's ranks are fixed, so the two sides are always ranks of the same world).
 * A port's name says which world rank opened it and its number there:
 * {@code lockstep-port:<world rank>:<number>}. The connecting side's root sends its world rank to
 * the port's rank with tag {@code 2 * number} over the session's private copy of the world
 * ({@link Session#ports}); the accepting root receives it there, and both groups then make the
 * intercommunicator with their roots as leaders, the private world as peer and tag
 * {@code 2 * number + 1} ({@code MPI_Intercomm_create}). Accepts on one port take the connects
 * in the order they reached the port's rank.
 */
final class Ports {
    private static final String PREFIX = "lockstep-port:";
    /** Tags up to 2 * this + 1 stay within the smallest tag bound MPI allows a provider (32767). */
    private static final int MOST_PORTS = 16383;
    /** The numbers of the ports this rank opened (one class loader per rank, so a static is per rank). */
    private static final AtomicInteger OPENED = new AtomicInteger();

    private Ports() {
    }

    /** A port's owner and number, parsed from its name. */
    record Port(int worldRank, int number) {
        int requestTag() {
            return 2 * number;
        }

        int leaderTag() {
            return 2 * number + 1;
        }
    }

    static String open() throws MPIException {
        Session s = Session.get();
        int number = OPENED.incrementAndGet();
        if (number > MOST_PORTS) {
            throw ErrorClasses.argument(ErrorClasses.NO_MEM, "Intracomm.openPort", "this rank has opened all the ports it can");
        }
        return PREFIX + s.world.rank() + ":" + number;
    }

    /** The port named {@code name}; ERR_PORT unless it is a Lockstep port of this job's world. */
    static Port parse(String call, String name) throws MPIException {
        Session s = Session.get();
        if (name != null && name.startsWith(PREFIX)) {
            String[] parts = name.substring(PREFIX.length()).trim().split(":");
            try {
                if (parts.length == 2) {
                    Port p = new Port(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
                    if (p.worldRank() >= 0 && p.worldRank() < s.world.size() && p.number() > 0) {
                        return p;
                    }
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw ErrorClasses.argument(ErrorClasses.PORT, call, "'" + name + "' is not a port of this job (Intracomm.openPort names them "
                + PREFIX + "<rank>:<number>)");
    }

    /**
     * One group's side of a connection, collective over {@code local} ({@code accepting}: the
     * group whose rank {@code root} opened {@code port}). The root checks the port first and tells
     * its group whether it may go on, so that a port the root refuses ({@code MPI_ERR_PORT}) fails
     * the call at every rank of the group instead of leaving the others waiting for it. At the roots,
     * the connecting one sends its world rank to the port's rank and the accepting one receives it;
     * then both groups make the intercommunicator with the roots as leaders (peer, leader and tag
     * count there only).
     */
    static Intercommunicator join(String call, Communicator local, int root, String port, boolean accepting) throws MPIException {
        if (local.rank() != root) {
            if (!rootGoesOn(local, root, true)) {
                throw ErrorClasses.argument(ErrorClasses.PORT, call, "rank " + root + ", the root of this group, refused the port");
            }
            return local.createIntercommunicator(root, null, 0, 0);
        }
        Session s = Session.get();
        Port p;
        try {
            p = parse(call, port);
            if (accepting && p.worldRank() != s.world.rank()) {
                throw ErrorClasses.argument(ErrorClasses.PORT, call, "port " + port + " was opened by rank " + p.worldRank()
                        + " of the world, not by this accepting root (rank " + s.world.rank() + ")");
            }
        } catch (MPIException refused) {
            rootGoesOn(local, root, false);
            throw refused;
        }
        rootGoesOn(local, root, true);
        int remoteLeader;
        if (accepting) {
            int[] connector = new int[1];
            s.ports.recv(MemorySegment.ofArray(connector), 1, Datatype.INT, Communicator.ANY_SOURCE, p.requestTag());
            remoteLeader = connector[0];
        } else {
            s.ports.send(MemorySegment.ofArray(new int[] {s.world.rank()}), 1, Datatype.INT, p.worldRank(), p.requestTag());
            remoteLeader = p.worldRank();
        }
        return local.createIntercommunicator(root, s.ports, remoteLeader, p.leaderTag());
    }

    /** The root's word to its group ({@code goesOn} at the root, ignored elsewhere): whether it accepted the port. */
    private static boolean rootGoesOn(Communicator local, int root, boolean goesOn) {
        if (local.size() == 1) {
            return goesOn;
        }
        int[] word = {goesOn ? 1 : 0};
        local.bcast(MemorySegment.ofArray(word), 1, Datatype.INT, root);
        return word[0] == 1;
    }

    /** {@code MPI_Close_port}: a port holds nothing until an accept uses it, so closing checks the name. */
    static void close(String name) throws MPIException {
        parse("Intracomm.closePort", name);
    }
}
