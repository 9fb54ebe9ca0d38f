package org.lockstep.embsp;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

import org.lockstep.api.JobOptions;
import org.lockstep.applications.Application;
import org.lockstep.applications.Applications;

/**
 * Runs one application under EM-BSP from the command line, for measurements without the tools module
 * ({@code lockstep embsp} is the command for users):
 * {@code java -cp … org.lockstep.embsp.RunApplication sort 67108864 vps=64 cores=2 contextSize=… [key=value …]},
 * where every {@code key=value} is a {@code lockstep.embsp.*} property. Prints the simulator's
 * key=value line, then {@code app=… size=… digest=… app_seconds=… mb_per_s=…}.
 */
public final class RunApplication {
    private RunApplication() {
    }

    public static void main(String[] args) {
        String name = args[0];
        long size = Long.parseLong(args[1]);
        int vps = 0;
        JobOptions job = JobOptions.ofRanks(1);
        for (int i = 2; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (kv[0].equals("vps")) {
                vps = Integer.parseInt(kv[1]);
            } else {
                job = job.with("lockstep.embsp." + kv[0], kv[1]);
            }
        }
        job = new JobOptions(vps, job.properties());
        Application app = Applications.create(name, java.util.List.of("--size", Long.toString(size)));
        AtomicLong digest = new AtomicLong();
        long start = System.nanoTime();
        var report = EmBspTestSupport.run(job, w -> digest.set(app.run(w)));
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.println(report.keyValueLine());
        System.out.printf(Locale.ROOT, "app=%s size=%d digest=%d app_seconds=%.3f mb_per_s=%.1f within_bounds=%s%n", name, size,
                digest.get(), seconds, size * 8 / seconds / 1e6, report.withinBounds());
    }
}
