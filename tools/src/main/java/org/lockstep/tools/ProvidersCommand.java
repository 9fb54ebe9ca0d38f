package org.lockstep.tools;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;

import org.lockstep.api.Lockstep;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code lockstep providers}: the providers that ServiceLoader finds, and which one is the default. */
@Command(name = "providers", mixinStandardHelpOptions = true,
        description = "Lists the installed Lockstep providers (exit 1 if there is none).")
final class ProvidersCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Map<String, String> providers = Lockstep.providers();
        if (providers.isEmpty()) {
            spec.commandLine().getErr().println("No Lockstep provider is installed: put one, such as lockstep-impl-pcie, on the module path.");
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        int width = providers.keySet().stream().mapToInt(String::length).max().orElse(0);
        providers.forEach((name, description) -> out.printf("%-" + width + "s  %s%s%n", name, description,
                name.equals(Lockstep.DEFAULT_PROVIDER) && providers.size() > 1 ? "  (default)" : ""));
        return 0;
    }
}
