package org.lockstep.bench;

import java.time.Duration;

import jdk.jfr.Recording;

import org.lockstep.spi.events.Events;
import org.lockstep.spi.events.SendEvent;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a per-message Flight Recorder event costs a send, as the point-to-point templates record
 * one ({@link Events#begun}, then {@link SendEvent#sent}): with no recording ({@code off}: the
 * check alone, nothing allocated once compiled) and with a recording that keeps every send
 * ({@code on}: threshold 0, two timestamps and a commit).
 */
public class EventGuardBenchmark extends PathBenchmark {
    @Param({"off", "on"})
    String recording;

    private Recording running;
    private int tag;

    @Setup
    public void setUp() {
        if (recording.equals("on")) {
            running = new Recording();
            running.enable("org.lockstep.Send").withThreshold(Duration.ZERO);
            running.start();
        }
    }

    @TearDown
    public void tearDown() {
        if (running != null) {
            running.close();
        }
    }

    @Benchmark
    public Object send() {
        SendEvent event = Events.begun(SendEvent::new);
        if (event != null) {
            event.sent(0, 1, tag++, 8, false, true, false);
        }
        return event;
    }
}
