package org.lockstep.bundles;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * What a built jar says about itself: its JPMS module descriptor, its OSGi manifest and its
 * {@code META-INF/services} files.
 *
 * @param path            the jar
 * @param descriptor      {@code module-info.class} at the jar's root, if there is one
 * @param manifest        {@code META-INF/MANIFEST.MF} (empty if the jar has none)
 * @param serviceFiles    service type → provider classes listed in {@code META-INF/services/<type>}
 * @param hasClasses      whether the jar holds any class besides {@code module-info.class}
 */
record BundleJar(Path path, Optional<ModuleDescriptor> descriptor, Manifest manifest,
                 Map<String, List<String>> serviceFiles, boolean hasClasses) {
    private static final String MODULE_INFO = "module-info.class";
    private static final String SERVICES = "META-INF/services/";
    private static final String CLASS_SUFFIX = ".class";

    static BundleJar read(Path path) {
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("not a packaged jar: " + path
                    + " (run 'mvn verify' from the repository root so the reactor packages every module)");
        }
        try (JarFile jar = new JarFile(path.toFile())) {
            Manifest manifest = jar.getManifest() == null ? new Manifest() : jar.getManifest();
            Optional<ModuleDescriptor> descriptor = Optional.empty();
            JarEntry moduleInfo = jar.getJarEntry(MODULE_INFO);
            if (moduleInfo != null) {
                try (InputStream in = jar.getInputStream(moduleInfo)) {
                    descriptor = Optional.of(ModuleDescriptor.read(in));
                }
            }
            Map<String, List<String>> serviceFiles = new TreeMap<>();
            boolean hasClasses = false;
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                String name = entry.getName();
                if (name.startsWith(SERVICES) && !entry.isDirectory() && name.length() > SERVICES.length()) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        serviceFiles.put(name.substring(SERVICES.length()), providerNames(in));
                    }
                } else if (name.endsWith(CLASS_SUFFIX) && !name.endsWith(MODULE_INFO)) {
                    hasClasses = true;
                }
            }
            return new BundleJar(path, descriptor, manifest, serviceFiles, hasClasses);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read jar " + path, e);
        }
    }

    /** Provider class names of a service file: one a line, {@code #} starts a comment. */
    static List<String> providerNames(InputStream in) throws IOException {
        List<String> names = new ArrayList<>();
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\\R")) {
            int comment = line.indexOf('#');
            String name = (comment < 0 ? line : line.substring(0, comment)).strip();
            if (!name.isEmpty()) {
                names.add(name);
            }
        }
        return names;
    }

    String fileName() {
        return path.getFileName().toString();
    }
}
