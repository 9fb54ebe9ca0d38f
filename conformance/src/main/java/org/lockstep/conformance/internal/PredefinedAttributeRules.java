package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.COMM;
import static org.lockstep.conformance.Level.REQUIRED;
import static org.lockstep.conformance.Origin.mpich;
import static org.lockstep.conformance.Origin.standard;
import static org.lockstep.conformance.RuleViolation.check;
import static org.lockstep.conformance.RuleViolation.checkEquals;
import static org.lockstep.conformance.internal.Definitions.expectError;
import static org.lockstep.conformance.internal.Definitions.messaging;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Keyval;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Rule;

/** COMM.09: MPI's predefined attributes, which every communicator answers and no program may set. */
final class PredefinedAttributeRules {
    /** MPI's least TAG_UB (MPI 4.1 §9.1.1). */
    private static final int LEAST_TAG_UB = 32767;

    private PredefinedAttributeRules() {
    }

    static List<Rule> rules() {
        return List.of(messaging(COMM, 9, REQUIRED, "predefinedAttributesAreAnswered",
                "TAG_UB (at least 32767, and a message tagged with it arrives with it), HOST, IO and WTIME_IS_GLOBAL are answered"
                        + " on the world and on a duplicate, UNIVERSE_SIZE (if answered) is at least the world's size and APPNUM"
                        + " (if answered) not negative; setting, deleting or freeing one is a KEYVAL error.",
                List.of(standard("§9.1.1 environmental inquiries: MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL"),
                        standard("§11.10.1 MPI_UNIVERSE_SIZE, §11.10.3 MPI_APPNUM"), mpich("attr/baseattr2.c"),
                        mpich("attr/baseattrcomm.c")),
                PredefinedAttributeRules::answered));
    }

    private static <T> T present(Communicator c, Keyval<T> key, String where) {
        Optional<T> value = c.attribute(key);
        check(value.isPresent(), where + " does not answer " + key);
        return value.get();
    }

    private static void answered(MessagingRuleContext c) {
        for (int n : c.rankCounts(2, 4)) {
            c.runClean(n, "predefined attributes", rank -> {
                Communicator w = rank.comm();
                int me = w.rank();
                int tagUb = present(w, Keyval.TAG_UB, "the world");
                check(tagUb >= LEAST_TAG_UB, "TAG_UB " + tagUb + " is below MPI's least, " + LEAST_TAG_UB);
                // a message tagged TAG_UB around the ring arrives with it
                Request sent = w.isend(MemorySegment.ofArray(new int[] {me}), 1, Datatype.INT, (me + 1) % w.size(), tagUb);
                int[] got = new int[1];
                Status s = w.recv(MemorySegment.ofArray(got), 1, Datatype.INT, (me + w.size() - 1) % w.size(), Communicator.ANY_TAG);
                sent.await();
                checkEquals(tagUb, s.tag(), "tag of a message sent with tag TAG_UB");
                int host = present(w, Keyval.HOST, "the world");
                check(host == Communicator.PROC_NULL || host >= 0 && host < w.size(), "HOST " + host + " is neither PROC_NULL nor a rank");
                int io = present(w, Keyval.IO, "the world");
                check(io == Communicator.ANY_SOURCE || io == Communicator.PROC_NULL || io >= 0 && io < w.size(),
                        "IO " + io + " is neither ANY_SOURCE, PROC_NULL nor a rank");
                present(w, Keyval.WTIME_IS_GLOBAL, "the world");
                w.attribute(Keyval.UNIVERSE_SIZE).ifPresent(u -> check(u >= w.size(), "UNIVERSE_SIZE " + u
                        + " is below the world's size " + w.size()));
                w.attribute(Keyval.APPNUM).ifPresent(a -> check(a >= 0, "APPNUM " + a + " is negative"));
                Communicator d = w.dup();
                checkEquals(tagUb, present(d, Keyval.TAG_UB, "a duplicate of the world"), "TAG_UB on a duplicate");
                present(d, Keyval.WTIME_IS_GLOBAL, "a duplicate of the world");
                d.close();
                expectError(ErrorClass.KEYVAL, "setting TAG_UB", () -> w.setAttribute(Keyval.TAG_UB, 5));
                expectError(ErrorClass.KEYVAL, "deleting HOST", () -> w.deleteAttribute(Keyval.HOST));
                expectError(ErrorClass.KEYVAL, "freeing the key of IO", Keyval.IO::free);
                checkEquals(tagUb, present(w, Keyval.TAG_UB, "the world after the refused calls"), "TAG_UB after the refused calls");
            });
        }
    }
}
