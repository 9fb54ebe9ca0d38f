package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

class SmokeTest {
    @Test
    void ringAndAllreduce() {
        RunReport r = Simulation.run(TestJobs.job(8, 2, 128 << 10, 4096), world -> {
            int rank = world.rank();
            int n = world.size();
            MemorySegment buf = world.allocate(40_000);
            buf.fill((byte) rank);
            MemorySegment in = world.allocate(40_000);
            int next = (rank + 1) % n;
            int prev = (rank + n - 1) % n;
            var req = world.irecv(in, 40_000, Datatype.BYTE, prev, 7);
            world.send(buf, 40_000, Datatype.BYTE, next, 7);
            req.await();
            if (in.get(ValueLayout.JAVA_BYTE, 39_999) != (byte) prev) {
                throw new AssertionError("ring data");
            }
            world.barrier();
            MemorySegment x = world.allocate(8);
            MemorySegment y = world.allocate(8);
            x.set(ValueLayout.JAVA_LONG, 0, rank + 1);
            world.allreduce(x, y, 1, Datatype.LONG, Op.SUM);
            if (y.get(ValueLayout.JAVA_LONG, 0) != (long) n * (n + 1) / 2) {
                throw new AssertionError("allreduce " + y.get(ValueLayout.JAVA_LONG, 0));
            }
        });
        System.out.println(r.keyValueLine());
        r.calls().forEach(System.out::println);
        assertEquals(8, r.options().vps());
    }
}
