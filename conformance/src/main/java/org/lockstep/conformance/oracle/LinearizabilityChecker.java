package org.lockstep.conformance.oracle;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a concurrent history against a sequential model (Herlihy and Wing's linearizability),
 * by the Wing–Gong search with memoisation of (linearized operations, model state) as Lowe
 * describes it: some order of the operations must respect real time (an operation that returned
 * before another was invoked comes first) and be a legal run of the model, in which each
 * operation's recorded result is what the model produces.
 *
 * <p>Exponential in the worst case; meant for the small histories of generated scenarios.
 *
 * @param <S> the model's state: immutable, with value equality
 */
public final class LinearizabilityChecker<S> {
    /**
     * One completed operation.
     *
     * @param label    how to name it in a report
     * @param invoke   when it was invoked ({@link System#nanoTime()})
     * @param response when its result was seen
     * @param effect   its effect on the model: the next state, or empty if its recorded result is impossible in {@code state}
     */
    public record Operation<S>(String label, long invoke, long response, Effect<S> effect) {
        public Operation {
            Objects.requireNonNull(effect, "effect");
            if (response < invoke) {
                throw new IllegalArgumentException(label + " responded before it was invoked");
            }
        }
    }

    /** What an operation does to a model state. */
    @FunctionalInterface
    public interface Effect<S> {
        Optional<S> apply(S state);
    }

    /** The largest history searched; longer ones are refused rather than searched for hours. */
    public static final int MAX_OPERATIONS = 63;

    private final List<Operation<S>> operations;
    private final Set<Visited<S>> visited = new HashSet<>();
    private int deepest;
    private List<String> deepestOrder = List.of();

    private record Visited<S>(BitSet done, S state) {
    }

    private LinearizabilityChecker(List<Operation<S>> operations) {
        this.operations = operations;
    }

    /**
     * Empty if {@code history} is linearizable from {@code initial}; otherwise a description of
     * the longest legal prefix found and the operations none of which could come next.
     */
    public static <S> Optional<String> check(S initial, List<Operation<S>> history) {
        if (history.size() > MAX_OPERATIONS) {
            throw new IllegalArgumentException("history of " + history.size() + " operations exceeds " + MAX_OPERATIONS);
        }
        LinearizabilityChecker<S> c = new LinearizabilityChecker<>(List.copyOf(history));
        if (c.search(new BitSet(), initial, new ArrayList<>())) {
            return Optional.empty();
        }
        List<String> stuck = new ArrayList<>();
        BitSet done = new BitSet();
        for (String label : c.deepestOrder) {
            for (int i = 0; i < c.operations.size(); i++) {
                if (!done.get(i) && c.operations.get(i).label().equals(label)) {
                    done.set(i);
                    break;
                }
            }
        }
        for (int i = 0; i < c.operations.size(); i++) {
            if (!done.get(i)) {
                stuck.add(c.operations.get(i).label());
            }
        }
        return Optional.of("not linearizable: the longest legal order found is " + c.deepestOrder
                + "; none of " + stuck + " can take effect next");
    }

    private boolean search(BitSet done, S state, List<String> order) {
        int n = operations.size();
        if (done.cardinality() == n) {
            return true;
        }
        if (!visited.add(new Visited<>((BitSet) done.clone(), state))) {
            return false;
        }
        if (order.size() > deepest || deepestOrder.isEmpty()) {
            deepest = order.size();
            deepestOrder = List.copyOf(order);
        }
        long earliestResponse = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (!done.get(i)) {
                earliestResponse = Math.min(earliestResponse, operations.get(i).response());
            }
        }
        for (int i = 0; i < n; i++) {
            Operation<S> op = operations.get(i);
            // Only an operation invoked before every pending one has responded may take effect next.
            if (done.get(i) || op.invoke() > earliestResponse) {
                continue;
            }
            Optional<S> next = op.effect().apply(state);
            if (next.isEmpty()) {
                continue;
            }
            done.set(i);
            order.add(op.label());
            if (search(done, next.get(), order)) {
                return true;
            }
            order.removeLast();
            done.clear(i);
        }
        return false;
    }
}
