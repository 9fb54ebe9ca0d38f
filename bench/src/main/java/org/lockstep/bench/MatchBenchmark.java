package org.lockstep.bench;

import org.lockstep.spi.messaging.Envelope;
import org.lockstep.spi.messaging.MatchingEngine;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * MPI matching on one receiving rank ({@link MatchingEngine}): a receive posted before its message
 * arrives (expected), a message that arrives before its receive (unexpected), and either with
 * {@code depth} non-matching messages of another tag queued ahead from the same source, which a
 * match must scan past. The entries are reused: this is the engine's cost, not the allocation of
 * requests.
 */
public class MatchBenchmark extends PathBenchmark {
    private static final int SOURCE = 1;
    private static final int TAG = 7;
    private static final int OTHER_TAG = 8;
    private static final int CONTEXT = 0;

    /** Ranks of the world: the engine keeps a queue per source. */
    @Param({"2", "64"})
    int worldSize;

    /** Unexpected messages of another tag queued ahead of the match. */
    @Param({"0", "16"})
    int depth;

    private MatchingEngine<Object> engine;
    private Receive specific;
    private Receive anySource;
    private MatchingEngine.Arrival<Object> arrival;

    /** A posted receive as a transport would post it. */
    static final class Receive extends MatchingEngine.PostedReceive {
        Receive(int source, int tag, int context) {
            super(source, tag, context);
        }
    }

    @Setup
    public void setUp() {
        engine = new MatchingEngine<>(worldSize);
        for (int i = 0; i < depth; i++) {
            engine.arrive(new MatchingEngine.Arrival<>(new Envelope(SOURCE, OTHER_TAG, CONTEXT), 8, null));
        }
        specific = new Receive(SOURCE, TAG, CONTEXT);
        anySource = new Receive(MatchingEngine.ANY_SOURCE, TAG, CONTEXT);
        arrival = new MatchingEngine.Arrival<>(new Envelope(SOURCE, TAG, CONTEXT), 8, null);
    }

    /** The receive is posted first; the message's arrival finds it. */
    @Benchmark
    public Object expected() {
        engine.post(specific);
        return engine.arrive(arrival);
    }

    /** The message arrives first and waits as unexpected; the receive finds it behind {@code depth} others. */
    @Benchmark
    public Object unexpected() {
        engine.arrive(arrival);
        return engine.post(specific);
    }

    /** As {@link #unexpected}, with an {@code ANY_SOURCE} receive: every source's queue is looked at. */
    @Benchmark
    public Object unexpectedAnySource() {
        engine.arrive(arrival);
        return engine.post(anySource);
    }
}
