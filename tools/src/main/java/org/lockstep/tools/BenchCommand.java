package org.lockstep.tools;

import picocli.CommandLine.Command;

/** {@code lockstep bench}: the group of benchmarks. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks over a provider and device.",
        subcommands = {PingPongCommand.class, CollectivesBenchCommand.class, CheckpointBenchCommand.class, HaloBenchCommand.class, RmaBenchCommand.class})
final class BenchCommand {
}
