package org.lockstep.applications;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;

/**
 * Runs one application by name: {@code ApplicationMain [--ranks N] sort --keys N}. Started by
 * {@code lockstep run}, it is one rank of the launcher's world; otherwise it runs {@code --ranks}
 * threads (default {@value #DEFAULT_RANKS}) on the provider Lockstep chooses. Rank 0 prints
 * {@link #resultLine}; a failed self-check ends the process with an {@link AssertionError}.
 */
public final class ApplicationMain {
    static final int DEFAULT_RANKS = 4;

    private ApplicationMain() {
    }

    public static void main(String[] args) {
        List<String> rest = Arrays.asList(args);
        int ranks = DEFAULT_RANKS;
        if (!rest.isEmpty() && rest.getFirst().equals("--ranks")) {
            if (rest.size() < 2) {
                throw new LockstepException(ErrorClass.ARG, "--ranks needs a value");
            }
            ranks = Integer.parseInt(rest.get(1));
            rest = rest.subList(2, rest.size());
        }
        if (rest.isEmpty()) {
            System.err.println("usage: [--ranks N] APPLICATION [ARGS]" + System.lineSeparator() + Applications.usage());
            System.exit(2);
        }
        Application app = Applications.create(rest.getFirst(), rest.subList(1, rest.size()));
        long start = System.nanoTime();
        Lockstep.run(JobOptions.ofRanks(ranks), world -> {
            long digest = app.run(world);
            if (world.rank() == 0) {
                System.out.println(resultLine(app, world.size(), digest, (System.nanoTime() - start) / 1e9));
            }
        });
    }

    /** {@code app=… size=… ranks=… digest=… app_seconds=… mb_per_s=… check=ok}: the result of a run that checked itself. */
    public static String resultLine(Application app, int ranks, long digest, double seconds) {
        return String.format(Locale.ROOT, "app=%s size=%d ranks=%d digest=%d app_seconds=%.3f mb_per_s=%.1f check=ok", app.name(),
                app.size(), ranks, digest, seconds, app.dataBytes() / seconds / 1e6);
    }
}
