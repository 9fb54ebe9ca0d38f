package org.lockstep.bundles;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * For every product jar the reactor built: its module descriptor, its OSGi manifest and its
 * service files agree (the rules are in {@link DescriptorConsistency}).
 */
class DescriptorConsistencyIT {
    /** Modules that exist from the start; more join as they are added to this module's dependencies. */
    private static final Set<String> FOUNDATION = Set.of("org.lockstep.api", "org.lockstep.spi");

    @Test
    void productJarsAreListed() {
        Set<String> names = ReactorJars.list(ReactorJars.PRODUCT_JARS).stream().map(BundleJar::read)
                .flatMap(jar -> jar.descriptor().stream()).map(ModuleDescriptor::name).collect(Collectors.toSet());
        assertTrue(names.containsAll(FOUNDATION), () -> "expected at least " + FOUNDATION + ", found " + names);
    }

    @TestFactory
    Stream<DynamicTest> descriptorAndManifestAgree() {
        List<Path> jars = ReactorJars.list(ReactorJars.PRODUCT_JARS);
        return jars.stream().map(path -> DynamicTest.dynamicTest(path.getFileName().toString(), () -> {
            BundleJar jar = BundleJar.read(path);
            // A module whose sources have not landed yet is an empty jar: nothing to compare.
            Assumptions.assumeTrue(jar.hasClasses() || jar.descriptor().isPresent(),
                    () -> jar.fileName() + " holds no classes yet");
            ModuleDescriptor descriptor = jar.descriptor().orElseThrow(() ->
                    new AssertionError(jar.fileName() + " has classes but no module-info.class at its root"));
            List<String> disagreements = DescriptorConsistency.disagreements(descriptor, jar.manifest(), jar.serviceFiles());
            assertTrue(disagreements.isEmpty(), () -> jar.fileName() + " (" + descriptor.name()
                    + "): module-info and OSGi metadata disagree:\n  " + String.join("\n  ", disagreements));
        }));
    }
}
