package org.lockstep.tools;

import java.io.PrintWriter;
import java.util.List;

import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;

/**
 * The example exchange as a program of its own, for {@code lockstep run -n N
 * org.lockstep.tools.ExchangeExample [threshold]}: the same code runs as N processes (launched)
 * or as N threads (not launched; N = 4).
 */
public final class ExchangeExample {
    private ExchangeExample() {
    }

    public static void main(String[] args) {
        long threshold = args.length > 0 ? org.lockstep.api.Sizes.parse("threshold", args[0]) : ExampleCommand.DEFAULT_THRESHOLD;
        List<Long> sizes = ExampleCommand.sizes(threshold);
        PrintWriter out = new PrintWriter(System.out, true);
        ExampleCommand.Exchange exchange = new ExampleCommand.Exchange(sizes, threshold, out);
        int[] worldSize = new int[1];
        Lockstep.run(JobOptions.ofRanks(4).with(ExampleCommand.INLINE_THRESHOLD_PROPERTY, Long.toString(threshold)), world -> {
            worldSize[0] = world.size();
            exchange.run(world);
        });
        out.flush();
        if (exchange.failures.get() > 0) {
            System.err.println("example FAILED: " + exchange.failures.get() + " received messages had wrong content or length");
            System.exit(1);
        }
        System.out.println("example OK: " + exchange.received.get() + " messages received and checked");
    }
}
