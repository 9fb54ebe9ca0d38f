package org.lockstep.tck;

import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepProvider;

/**
 * Finds a provider by name: among those installed with the kit (the bootstrap's ServiceLoader),
 * then in jars the user adds — as modules in a new layer when they are modular or automatic, else
 * on a class loader that reads their {@code META-INF/services} files.
 */
final class ProviderDiscovery {
    private ProviderDiscovery() {
    }

    static Optional<LockstepProvider> find(String name, List<Path> extraPath) {
        Optional<LockstepProvider> installed = Lockstep.find(name);
        if (installed.isPresent() || extraPath.isEmpty()) {
            return installed;
        }
        return fromLayer(name, extraPath).or(() -> fromClassPath(name, extraPath));
    }

    /** Names of every provider the kit can see, for the error that says none matched. */
    static String installedNames(List<Path> extraPath) {
        List<String> names = new ArrayList<>(Lockstep.providers().keySet());
        if (!extraPath.isEmpty()) {
            names.addAll(providers(extraPath).stream().map(LockstepProvider::name).toList());
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    private static List<LockstepProvider> providers(List<Path> extraPath) {
        List<LockstepProvider> all = new ArrayList<>();
        try {
            layerLoader(extraPath).forEach(all::add);
        } catch (RuntimeException e) {
            classPathLoader(extraPath).forEach(all::add);
        }
        return all;
    }

    private static Optional<LockstepProvider> fromLayer(String name, List<Path> extraPath) {
        try {
            return layerLoader(extraPath).stream().map(ServiceLoader.Provider::get).filter(p -> p.name().equals(name)).findFirst();
        } catch (RuntimeException notModular) {
            return Optional.empty();
        }
    }

    private static ServiceLoader<LockstepProvider> layerLoader(List<Path> extraPath) {
        ModuleFinder finder = ModuleFinder.of(extraPath.toArray(Path[]::new));
        Set<String> roots = finder.findAll().stream().map(ModuleReference::descriptor).map(d -> d.name()).collect(Collectors.toSet());
        ModuleLayer parent = ModuleLayer.boot();
        Configuration cf = parent.configuration().resolveAndBind(finder, ModuleFinder.of(), roots);
        ModuleLayer layer = parent.defineModulesWithOneLoader(cf, ProviderDiscovery.class.getClassLoader());
        return ServiceLoader.load(layer, LockstepProvider.class);
    }

    private static Optional<LockstepProvider> fromClassPath(String name, List<Path> extraPath) {
        for (LockstepProvider p : classPathLoader(extraPath)) {
            if (p.name().equals(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static ServiceLoader<LockstepProvider> classPathLoader(List<Path> extraPath) {
        URL[] urls = extraPath.stream().map(p -> {
            try {
                return p.toUri().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("not a usable path: " + p, e);
            }
        }).toArray(URL[]::new);
        return ServiceLoader.load(LockstepProvider.class, new URLClassLoader("lockstep-tck-providers", urls,
                ProviderDiscovery.class.getClassLoader()));
    }
}
