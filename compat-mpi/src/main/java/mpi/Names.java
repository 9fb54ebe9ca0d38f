package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;

/**
 * The name service of one job ({@code MPI_Publish_name}, {@code MPI_Lookup_name},
 * {@code MPI_Unpublish_name}; MPI 4.1 §11.4.4): its scope is the job's world, whose ranks are
 * all the processes a published name can reach. A rank that publishes or unpublishes a name
 * tells every other world rank, with a message of tag {@link #TAG} on the session's private copy
 * of the world (the ports' tags start at 2); each rank applies the records that have reached it,
 * in the order they arrived, before it looks a name up. A name published before a
 * synchronisation of the two ranks (a barrier, a message) is found after it.
 *
 * <p>A record is one byte (1: publish, 0: unpublish), the service name in UTF-8, a 0 byte, and
 * the port name in UTF-8.
 */
final class Names {
    static final int TAG = 0;
    /** The names this rank knows of: service to port (one class loader per rank, so a static is per rank). */
    private static final Map<String, String> PUBLISHED = new HashMap<>();
    /** The records this rank sent, until they are delivered. */
    private static final List<org.lockstep.api.Request> SENDING = new ArrayList<>();

    private Names() {
    }

    static synchronized void publish(String call, String service, String port) throws MPIException {
        checkNames(call, service, port);
        Session s = Session.get();
        catchUp(call, s.ports);
        String known = PUBLISHED.get(service);
        if (known != null) {
            throw ErrorClasses.argument(ErrorClasses.SERVICE, call, "the service '" + service + "' is published already, with port "
                    + known);
        }
        tellEveryone(call, s.ports, true, service, port);
        PUBLISHED.put(service, port);
    }

    static synchronized void unpublish(String call, String service, String port) throws MPIException {
        checkNames(call, service, port);
        Session s = Session.get();
        catchUp(call, s.ports);
        String known = PUBLISHED.get(service);
        if (known == null || !known.equals(port)) {
            throw ErrorClasses.argument(ErrorClasses.SERVICE, call, "the service '" + service + "' is not published"
                    + (known == null ? "" : " with port " + port + " (its port is " + known + ")"));
        }
        tellEveryone(call, s.ports, false, service, port);
        PUBLISHED.remove(service);
    }

    static synchronized String lookup(String call, String service) throws MPIException {
        if (service == null) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "the service name is null");
        }
        catchUp(call, Session.get().ports);
        String port = PUBLISHED.get(service);
        if (port == null) {
            throw ErrorClasses.argument(ErrorClasses.NAME, call, "no service '" + service + "' is published in this job");
        }
        return port;
    }

    private static void checkNames(String call, String service, String port) throws MPIException {
        if (service == null || port == null) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "the " + (service == null ? "service" : "port") + " name is null");
        }
        if (service.indexOf('\0') >= 0) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "the service name holds a NUL character");
        }
    }

    private static void tellEveryone(String call, Communicator world, boolean publish, String service, String port)
            throws MPIException {
        byte[] name = service.getBytes(StandardCharsets.UTF_8);
        byte[] value = port.getBytes(StandardCharsets.UTF_8);
        byte[] record = new byte[2 + name.length + value.length];
        record[0] = (byte) (publish ? 1 : 0);
        System.arraycopy(name, 0, record, 1, name.length);
        System.arraycopy(value, 0, record, 2 + name.length, value.length);
        MemorySegment data = MemorySegment.ofArray(record);
        try {
            SENDING.removeIf(org.lockstep.api.Request::isComplete);
            for (int r = 0; r < world.size(); r++) {
                if (r != world.rank()) {
                    SENDING.add(world.isend(data, record.length, Datatype.BYTE, r, TAG));
                }
            }
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
    }

    /** Applies the records that have reached this rank, in their order of arrival. */
    private static void catchUp(String call, Communicator world) throws MPIException {
        try {
            for (Optional<Status> next = world.iprobe(Communicator.ANY_SOURCE, TAG); next.isPresent();
                    next = world.iprobe(Communicator.ANY_SOURCE, TAG)) {
                byte[] record = new byte[(int) next.get().byteCount()];
                world.recv(MemorySegment.ofArray(record), record.length, Datatype.BYTE, next.get().source(), TAG);
                int end = 1;
                while (record[end] != 0) {
                    end++;
                }
                String service = new String(record, 1, end - 1, StandardCharsets.UTF_8);
                if (record[0] == 1) {
                    PUBLISHED.put(service, new String(record, end + 1, record.length - end - 1, StandardCharsets.UTF_8));
                } else {
                    PUBLISHED.remove(service);
                }
            }
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
    }
}
