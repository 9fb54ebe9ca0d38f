package org.lockstep.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.lockstep.tck.TckArguments;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code lockstep tck}: the conformance kit against a provider or a device path. The kit parses its
 * own options ({@code lockstep tck --help}); exit 0 compatible, 1 a required rule failed, 2 nothing ran.
 */
@Command(name = "tck", description = {"Runs the conformance kit against a provider (and the device it runs over).",
        "  lockstep tck --provider NAME [--device PATH] [--ranks 2,3,4,8] [--seed S] [--tries N] [--report DIR]",
        "Exit 0 compatible, 1 a required rule failed, 2 nothing could run. `lockstep tck --help` lists every option."})
final class TckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Unmatched
    List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() {
        return TckArguments.runFromCommandLine(arguments.toArray(String[]::new), spec.commandLine().getOut()::println,
                spec.commandLine().getErr()::println);
    }
}
