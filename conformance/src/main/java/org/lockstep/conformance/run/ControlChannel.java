package org.lockstep.conformance.run;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * The kit's own traffic between the ranks of a run — named signals and barriers — on a duplicate
 * of the world communicator, so that it never meets the rule's messages (an isolated context, as
 * MPI libraries do it) and goes through the provider like any wait: a provider that runs one rank
 * at a time (EM-BSP's virtual processors) swaps ranks at these calls as it does at any other.
 */
final class ControlChannel {
    private static final int SIGNAL_TAG = 1;
    private static final int ARRIVED_TAG = 2;
    private static final int RELEASED_TAG = 3;
    /** The rank that gathers arrivals at a barrier. */
    private static final int COORDINATOR = 0;
    private static final int MAX_NAME_BYTES = 1024;

    private final Communicator control;
    private final RankState state;
    private final Set<String> raised = new HashSet<>();
    private final List<Request> sent = new ArrayList<>();

    ControlChannel(Communicator control, RankState state) {
        this.control = control;
        this.state = state;
    }

    /** Tells every other rank that {@code name} is raised. */
    void signal(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("signal name too long: " + name);
        }
        raised.add(name);
        for (int peer = 0; peer < control.size(); peer++) {
            if (peer != control.rank()) {
                sent.add(control.isend(MemorySegment.ofArray(bytes), bytes.length, Datatype.BYTE, peer, SIGNAL_TAG));
            }
        }
    }

    /** Waits until some rank (this one included) has raised {@code name}. */
    void awaitSignal(String name) {
        RankState.Activity a = state.begin("await signal", name, true);
        MemorySegment buffer = MemorySegment.ofArray(new byte[MAX_NAME_BYTES]);
        while (!raised.contains(name)) {
            Status s = complete(control.irecv(buffer, MAX_NAME_BYTES, Datatype.BYTE, Communicator.ANY_SOURCE, SIGNAL_TAG));
            raised.add(new String(buffer.asSlice(0, s.byteCount()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    StandardCharsets.UTF_8));
        }
        state.end(a, "raised");
    }

    /**
     * A barrier of all ranks, through the provider's point-to-point calls (every rank tells the
     * coordinator it arrived; the coordinator releases them once all have).
     */
    void barrier() {
        RankState.Activity a = state.begin("rendezvous", "barrier of all ranks on the kit's communicator", true);
        int me = control.rank();
        if (me == COORDINATOR) {
            for (int arrivals = 1; arrivals < control.size(); arrivals++) {
                complete(control.irecv(MemorySegment.NULL, 0, Datatype.BYTE, Communicator.ANY_SOURCE, ARRIVED_TAG));
            }
            List<Request> releases = new ArrayList<>();
            for (int peer = 0; peer < control.size(); peer++) {
                if (peer != me) {
                    releases.add(control.isend(MemorySegment.NULL, 0, Datatype.BYTE, peer, RELEASED_TAG));
                }
            }
            releases.forEach(this::complete);
        } else {
            Request arrived = control.isend(MemorySegment.NULL, 0, Datatype.BYTE, COORDINATOR, ARRIVED_TAG);
            complete(control.irecv(MemorySegment.NULL, 0, Datatype.BYTE, COORDINATOR, RELEASED_TAG));
            complete(arrived);
        }
        state.end(a, "all arrived");
    }

    /** Completes the signals this rank sent. */
    void finish() {
        for (Request r : sent) {
            complete(r);
        }
        sent.clear();
    }

    private Status complete(Request r) {
        Waiting idle = new Waiting(state);
        while (true) {
            Optional<Status> s = r.test();
            if (s.isPresent()) {
                return s.get();
            }
            idle.idle();
        }
    }
}
