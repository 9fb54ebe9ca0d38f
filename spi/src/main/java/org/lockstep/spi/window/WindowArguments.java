package org.lockstep.spi.window;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Group;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Window.Assertion;

/** The argument checks of {@link AbstractWindow}'s templates that need none of its state. */
final class WindowArguments {
    /** Assertions as bits ({@code 1 << ordinal}). */
    static final int NOCHECK = bit(Assertion.NOCHECK);
    static final int NOPRECEDE = bit(Assertion.NOPRECEDE);
    static final int NOSUCCEED = bit(Assertion.NOSUCCEED);
    /** What each call takes (MPI 4.1 §12.5.5). */
    static final int FENCE_TAKES = bit(Assertion.NOSTORE) | bit(Assertion.NOPUT) | NOPRECEDE | NOSUCCEED;
    static final int POST_TAKES = NOCHECK | bit(Assertion.NOSTORE) | bit(Assertion.NOPUT);
    static final int START_OR_LOCK_TAKES = NOCHECK;

    private WindowArguments() {
    }

    private static int bit(Assertion a) {
        return 1 << a.ordinal();
    }

    /** {@code given} as bits; ASSERT if {@code call} does not take one of them, ARG if one is null. */
    static int assertions(Assertion[] given, String call, int takes) {
        if (given == null) {
            throw new LockstepException(ErrorClass.ARG, call + ": the assertions are null (none: pass no assertion)");
        }
        int bits = 0;
        for (Assertion a : given) {
            if (a == null) {
                throw new LockstepException(ErrorClass.ARG, call + ": a null assertion");
            }
            if ((takes & bit(a)) == 0) {
                throw new LockstepException(ErrorClass.ASSERT, call + " does not take the assertion " + a + " (MPI 4.1 §12.5.5)");
            }
            bits |= bit(a);
        }
        return bits;
    }

    /**
     * The bytes a transfer of {@code count} elements of {@code type} reaches from its buffer's start,
     * given its data's {@code bytes}: those for a contiguous type, the span of its pieces for another.
     */
    static long reachOf(long bytes, long count, Datatype type) {
        return type.isContiguous() ? bytes : type.span(count);
    }

    /** The predefined element type of an accumulate of {@code type} with {@code op}. */
    static Datatype checkOp(Datatype type, Op op) {
        if (op == null || !op.isPredefined()) {
            throw new LockstepException(ErrorClass.OP, "one-sided accumulates take predefined operations only, not " + op);
        }
        Datatype element = type.isPredefined() ? type : type.basicType();
        if (element == null || !op.supports(element)) {
            throw new LockstepException(ErrorClass.OP, op + " is not defined on " + type);
        }
        if (!type.isContiguous() && element.kind() == Datatype.Kind.PAIR) {
            // a piece may split a value from its index where the pair has padding between them
            throw new LockstepException(ErrorClass.TYPE, "one-sided accumulates of value-index pairs take contiguous types, not " + type);
        }
        return element;
    }

    /** {@code window}'s ranks of {@code g}'s members; GROUP if one is not a rank of the window. */
    static int[] ranksOf(Group window, Group g) {
        if (g == null) {
            throw new LockstepException(ErrorClass.GROUP, "group is null");
        }
        int[] ranks = new int[g.size()];
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = window.rankOfWorld(g.worldRank(i));
            if (ranks[i] == Communicator.UNDEFINED) {
                throw new LockstepException(ErrorClass.GROUP, "process " + g.worldRank(i) + " of the group is not a rank of the window");
            }
        }
        return ranks;
    }
}
