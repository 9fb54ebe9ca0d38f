package org.lockstep.tck.mutants;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Group;
import org.lockstep.api.Info;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.Window;

/** Breakages of one-sided windows (the RMA rules): each a plausible bug in a window's synchronisation or atomicity. */
final class WindowBreakages {
    private WindowBreakages() {
    }

    /** A communicator whose windows carry the breakage {@code broken} makes of each. */
    static final class BrokenWindows {
        private final Communicator real;
        private final Function<Window, Object> broken;

        BrokenWindows(Communicator real, Function<Window, Object> broken) {
            this.real = real;
            this.broken = broken;
        }

        public Window allocateWindow(long byteSize, int dispUnit, Info hints) {
            Window made = real.allocateWindow(byteSize, dispUnit, hints);
            return Forwarders.forward(Window.class, made, broken.apply(made));
        }

        public Window allocateSharedWindow(long byteSize, int dispUnit, Info hints) {
            Window made = real.allocateSharedWindow(byteSize, dispUnit, hints);
            return Forwarders.forward(Window.class, made, broken.apply(made));
        }

        public Window createWindow(MemorySegment base, int dispUnit, Info hints) {
            Window made = real.createWindow(base, dispUnit, hints);
            return Forwarders.forward(Window.class, made, broken.apply(made));
        }
    }

    /** A put of a private copy of {@code origin}, to run later. */
    private static Runnable laterPut(Window real, MemorySegment origin, long count, Datatype type, int target, long disp) {
        MemorySegment copy = MemorySegment.ofArray(origin.asSlice(0, type.byteLength(count)).toArray(ValueLayout.JAVA_BYTE));
        return () -> real.put(copy, count, type, target, disp);
    }

    /** A put of a derived datatype writes its packed bytes contiguously at the target: the type's gaps close up. */
    static final class DerivedTypePacked {
        private final Window real;

        DerivedTypePacked(Window real) {
            this.real = real;
        }

        public void put(MemorySegment origin, long count, Datatype type, int target, long disp) {
            if (type.isContiguous()) {
                real.put(origin, count, type, target, disp);
                return;
            }
            MemorySegment packed = MemorySegment.ofArray(new byte[(int) type.packSize(count)]);
            type.pack(origin, count, packed, 0);
            real.put(packed, packed.byteSize(), Datatype.BYTE, target, disp);
        }
    }

    /** The closing call of an epoch does not complete its puts: they reach the target in the origin's next epoch. */
    static final class PutsOneEpochLate {
        private final Window real;
        private List<Runnable> current = new ArrayList<>();
        private List<Runnable> late = new ArrayList<>();

        PutsOneEpochLate(Window real) {
            this.real = real;
        }

        public void put(MemorySegment origin, long count, Datatype type, int target, long disp) {
            current.add(laterPut(real, origin, count, type, target, disp));
        }

        public void fence() {
            late.forEach(Runnable::run);
            real.fence();
            late = current;
            current = new ArrayList<>();
        }

        public void start(Group targets) {
            real.start(targets);
            late.forEach(Runnable::run);
            late = new ArrayList<>();
        }

        public void complete() {
            late.addAll(current);
            current = new ArrayList<>();
            real.complete();
        }
    }

    /** flushAll and flushLocalAll flush every rank of the window, locked or not. */
    static final class FlushAllOfEveryRank {
        private final Window real;

        FlushAllOfEveryRank(Window real) {
            this.real = real;
        }

        public void flushAll() {
            for (int r = 0; r < real.group().size(); r++) {
                real.flush(r);
            }
        }

        public void flushLocalAll() {
            for (int r = 0; r < real.group().size(); r++) {
                real.flushLocal(r);
            }
        }
    }

    /** rget returns a request already complete and gets the data only at the next flush or unlock. */
    static final class RgetCompletesEarly {
        private final Window real;
        private final List<Runnable> pending = new ArrayList<>();

        RgetCompletesEarly(Window real) {
            this.real = real;
        }

        public Request rget(MemorySegment origin, long count, Datatype type, int target, long disp) {
            // the real call into a scratch buffer keeps the epoch checks; the caller's buffer is filled later
            real.rget(MemorySegment.ofArray(new byte[(int) type.span(count)]), count, type, target, disp).await();
            pending.add(() -> real.get(origin, count, type, target, disp));
            return new Requests.Completed(Status.empty());
        }

        public void flush(int rank) {
            pending.forEach(Runnable::run);
            pending.clear();
            real.flush(rank);
        }

        public void unlock(int rank) {
            pending.forEach(Runnable::run);
            pending.clear();
            real.unlock(rank);
        }
    }

    /** A fence drops the assertions it is given: those it does not take are no error, and NOSUCCEED opens an epoch. */
    static final class FenceAssertionsIgnored {
        private final Window real;

        FenceAssertionsIgnored(Window real) {
            this.real = real;
        }

        public void fence(Window.Assertion... assertions) {
            real.fence();
        }
    }

    /** A put, get or accumulate given a target type of its own lays out the target as the origin. */
    static final class TargetLayoutIgnored {
        private final Window real;

        TargetLayoutIgnored(Window real) {
            this.real = real;
        }

        public void put(MemorySegment origin, long originCount, Datatype originType, int target, long disp, long targetCount,
                        Datatype targetType) {
            if (!originType.sameSignature(originCount, targetType, targetCount)) {
                real.put(origin, originCount, originType, target, disp, targetCount, targetType); // keeps the TYPE error
            } else {
                real.put(origin, originCount, originType, target, disp);
            }
        }

        public void get(MemorySegment origin, long originCount, Datatype originType, int target, long disp, long targetCount,
                        Datatype targetType) {
            real.get(origin, originCount, originType, target, disp);
        }

        public void accumulate(MemorySegment origin, long originCount, Datatype originType, int target, long disp, long targetCount,
                               Datatype targetType, Op op) {
            real.accumulate(origin, originCount, originType, target, disp, op);
        }
    }

    /** An exclusive lock is taken as a shared one. */
    static final class LockNotExclusive {
        private final Window real;

        LockNotExclusive(Window real) {
            this.real = real;
        }

        public void lock(Window.LockType type, int rank) {
            real.lock(Window.LockType.SHARED, rank);
        }
    }

    /** Flush completes nothing: puts of a lock epoch wait at the origin until its unlock. */
    static final class FlushIsLocal {
        private final Window real;
        private final List<Runnable> pending = new ArrayList<>();
        private int locks;

        FlushIsLocal(Window real) {
            this.real = real;
        }

        public void put(MemorySegment origin, long count, Datatype type, int target, long disp) {
            Runnable put = laterPut(real, origin, count, type, target, disp);
            if (locks > 0) {
                pending.add(put);
            } else {
                put.run();
            }
        }

        public void lock(Window.LockType type, int rank) {
            real.lock(type, rank);
            locks++;
        }

        public void lockAll() {
            real.lockAll();
            locks++;
        }

        public void flush(int rank) {
            // nothing leaves the origin
        }

        public void flushAll() {
            // nothing leaves the origin
        }

        public void unlock(int rank) {
            drain();
            real.unlock(rank);
            locks--;
        }

        public void unlockAll() {
            drain();
            real.unlockAll();
            locks--;
        }

        private void drain() {
            pending.forEach(Runnable::run);
            pending.clear();
        }
    }

    /**
     * Accumulate, fetch-and-op and compare-and-swap are a get, then a put of the combined value:
     * another rank's update in between is lost (the origin yields there, as a preempted one would).
     */
    static final class AccumulateNotAtomic {
        private final Window real;

        AccumulateNotAtomic(Window real) {
            this.real = real;
        }

        private MemorySegment read(long count, Datatype type, int target, long disp) {
            MemorySegment old = MemorySegment.ofArray(new byte[(int) type.byteLength(count)]);
            real.get(old, count, type, target, disp);
            real.flush(target);
            Thread.yield();
            return old;
        }

        private void write(MemorySegment value, long count, Datatype type, int target, long disp) {
            real.put(value, count, type, target, disp);
            real.flush(target);
        }

        public void accumulate(MemorySegment origin, long count, Datatype type, int target, long disp, Op op) {
            MemorySegment value = read(count, type, target, disp);
            op.apply(origin, value, count, type);
            write(value, count, type, target, disp);
        }

        public void getAccumulate(MemorySegment origin, MemorySegment result, long count, Datatype type, int target, long disp, Op op) {
            MemorySegment value = read(count, type, target, disp);
            MemorySegment.copy(value, 0, result, 0, value.byteSize());
            op.apply(origin, value, count, type);
            write(value, count, type, target, disp);
        }

        public void fetchAndOp(MemorySegment origin, MemorySegment result, Datatype type, int target, long disp, Op op) {
            MemorySegment value = read(1, type, target, disp);
            MemorySegment.copy(value, 0, result, 0, value.byteSize());
            op.apply(origin, value, 1, type);
            write(value, 1, type, target, disp);
        }

        public void compareAndSwap(MemorySegment origin, MemorySegment compare, MemorySegment result, Datatype type, int target, long disp) {
            MemorySegment value = read(1, type, target, disp);
            MemorySegment.copy(value, 0, result, 0, value.byteSize());
            if (value.mismatch(compare.asSlice(0, value.byteSize())) == -1) {
                write(origin.asSlice(0, value.byteSize()), 1, type, target, disp);
            }
        }
    }

    /** sharedQuery hands out the caller's own part whatever rank it names. */
    static final class SharedQueryOwnPart {
        private final Window real;

        SharedQueryOwnPart(Window real) {
            this.real = real;
        }

        public MemorySegment sharedQuery(int rank) {
            return real.segment();
        }
    }

    /** Accesses outside the target's part are dropped silently instead of failing with RMA_RANGE. */
    static final class RangeUnchecked {
        private final Window real;

        RangeUnchecked(Window real) {
            this.real = real;
        }

        private static void unlessOutOfRange(Runnable access) {
            try {
                access.run();
            } catch (LockstepException e) {
                if (e.errorClass() != ErrorClass.RMA_RANGE) {
                    throw e;
                }
            }
        }

        public void put(MemorySegment origin, long count, Datatype type, int target, long disp) {
            unlessOutOfRange(() -> real.put(origin, count, type, target, disp));
        }

        public void get(MemorySegment origin, long count, Datatype type, int target, long disp) {
            unlessOutOfRange(() -> real.get(origin, count, type, target, disp));
        }

        public void accumulate(MemorySegment origin, long count, Datatype type, int target, long disp, Op op) {
            unlessOutOfRange(() -> real.accumulate(origin, count, type, target, disp, op));
        }
    }
}
