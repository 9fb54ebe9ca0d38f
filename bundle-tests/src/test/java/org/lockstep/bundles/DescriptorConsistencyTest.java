package org.lockstep.bundles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;

/**
 * Proves the descriptor check can fail: a consistent jar passes, and each one-sided change to the
 * manifest, the service files or the module descriptor is reported, naming what differs.
 */
class DescriptorConsistencyTest {
    private static final String MODULE = "org.example.device";
    private static final String API_PACKAGE = "org.example.device.api";
    private static final String IMPL_PACKAGE = "org.example.device.internal";
    private static final String SERVICE = "org.example.device.api.DeviceFactory";
    private static final String IMPL = "org.example.device.internal.RamDeviceFactory";
    private static final String USED = "org.example.device.api.Plugin";

    private static final String EXPORTS = API_PACKAGE + ";version=\"1.0.0\";uses:=\"org.example.base,org.example.util\"";
    private static final String PROVIDES = "osgi.serviceloader;osgi.serviceloader=\"" + SERVICE + "\";register:=\"" + IMPL + "\"";
    private static final String REQUIRES = "osgi.serviceloader;filter:=\"(osgi.serviceloader=" + USED + ")\";cardinality:=multiple;resolution:=optional,"
            + "osgi.extender;filter:=\"(&(osgi.extender=osgi.serviceloader.processor)(version>=1.0.0)(!(version>=2.0.0)))\","
            + "osgi.extender;filter:=\"(&(osgi.extender=osgi.serviceloader.registrar)(version>=1.0.0)(!(version>=2.0.0)))\","
            + "osgi.ee;filter:=\"(&(osgi.ee=JavaSE)(version=25))\"";

    private static ModuleDescriptor.Builder module(String name) {
        return ModuleDescriptor.newModule(name).packages(Set.of(API_PACKAGE, IMPL_PACKAGE));
    }

    private static ModuleDescriptor consistentModule() {
        return module(MODULE).exports(API_PACKAGE).provides(SERVICE, List.of(IMPL)).uses(USED).build();
    }

    private static Manifest manifest(String symbolicName, String exports, String provides, String requires) {
        Manifest manifest = new Manifest();
        var main = manifest.getMainAttributes();
        main.putValue("Manifest-Version", "1.0");
        put(main, "Bundle-SymbolicName", symbolicName);
        put(main, "Export-Package", exports);
        put(main, "Provide-Capability", provides);
        put(main, "Require-Capability", requires);
        return manifest;
    }

    private static void put(java.util.jar.Attributes main, String key, String value) {
        if (value != null) {
            main.putValue(key, value);
        }
    }

    private static Manifest consistentManifest() {
        return manifest(MODULE + ";singleton:=true", EXPORTS, PROVIDES, REQUIRES);
    }

    private static Map<String, List<String>> consistentServices() {
        return Map.of(SERVICE, List.of(IMPL));
    }

    private static void assertReported(List<String> disagreements, String... fragments) {
        Predicate<String> mentionsAll = line -> {
            for (String fragment : fragments) {
                if (!line.contains(fragment)) {
                    return false;
                }
            }
            return true;
        };
        assertTrue(disagreements.stream().anyMatch(mentionsAll),
                () -> "expected a disagreement mentioning " + List.of(fragments) + ", got " + disagreements);
    }

    @Test
    void consistentJarHasNoDisagreement() {
        assertEquals(List.of(), DescriptorConsistency.disagreements(consistentModule(), consistentManifest(), consistentServices()));
    }

    @Test
    void wrongSymbolicNameIsReported() {
        Manifest renamed = manifest("org.example.devices", EXPORTS, PROVIDES, REQUIRES);
        assertReported(DescriptorConsistency.disagreements(consistentModule(), renamed, consistentServices()),
                "org.example.devices", MODULE);
    }

    @Test
    void missingSymbolicNameIsReported() {
        Manifest plainJar = manifest(null, EXPORTS, PROVIDES, REQUIRES);
        assertReported(DescriptorConsistency.disagreements(consistentModule(), plainJar, consistentServices()),
                "no Bundle-SymbolicName");
    }

    @Test
    void exportMissingFromManifestIsReported() {
        Manifest noExports = manifest(MODULE, null, PROVIDES, REQUIRES);
        assertReported(DescriptorConsistency.disagreements(consistentModule(), noExports, consistentServices()),
                API_PACKAGE, "not in Export-Package");
    }

    @Test
    void exportOnlyInManifestIsReported() {
        Manifest leaky = manifest(MODULE, EXPORTS + "," + IMPL_PACKAGE + ";version=\"1.0.0\"", PROVIDES, REQUIRES);
        assertReported(DescriptorConsistency.disagreements(consistentModule(), leaky, consistentServices()),
                IMPL_PACKAGE, "not in module-info exports");
    }

    @Test
    void providesWithoutServiceFileIsReported() {
        assertReported(DescriptorConsistency.disagreements(consistentModule(), consistentManifest(), Map.of()),
                SERVICE, "not in META-INF/services");
    }

    @Test
    void extraProvidesInModuleIsReportedAgainstFileAndCapability() {
        String extraService = "org.example.device.api.Inspector";
        ModuleDescriptor more = module(MODULE).exports(API_PACKAGE).provides(SERVICE, List.of(IMPL))
                .provides(extraService, List.of(IMPL)).uses(USED).build();
        List<String> found = DescriptorConsistency.disagreements(more, consistentManifest(), consistentServices());
        assertReported(found, extraService, "not in META-INF/services");
        assertReported(found, extraService, "not in Provide-Capability");
    }

    @Test
    void serviceFileListingAnotherProviderIsReported() {
        String other = "org.example.device.internal.FlashDeviceFactory";
        Map<String, List<String>> services = Map.of(SERVICE, List.of(IMPL, other));
        assertReported(DescriptorConsistency.disagreements(consistentModule(), consistentManifest(), services),
                other, "not in module-info provides");
    }

    @Test
    void serviceFileForUndeclaredServiceIsReported() {
        Map<String, List<String>> services = new LinkedHashMap<>(consistentServices());
        services.put("org.example.device.api.Inspector", List.of(IMPL));
        assertReported(DescriptorConsistency.disagreements(consistentModule(), consistentManifest(), services),
                "org.example.device.api.Inspector", "not in module-info provides");
    }

    @Test
    void missingServiceLoaderCapabilityIsReported() {
        Manifest noCapability = manifest(MODULE, EXPORTS, null, REQUIRES);
        assertReported(DescriptorConsistency.disagreements(consistentModule(), noCapability, consistentServices()),
                SERVICE, "not in Provide-Capability osgi.serviceloader");
    }

    @Test
    void capabilityRegisteringAnotherClassIsReported() {
        String wrong = PROVIDES.replace(IMPL, "org.example.device.internal.Old");
        Manifest manifest = manifest(MODULE, EXPORTS, wrong, REQUIRES);
        assertReported(DescriptorConsistency.disagreements(consistentModule(), manifest, consistentServices()),
                "org.example.device.internal.Old");
    }

    @Test
    void providerWithoutRegistrarRequirementIsReported() {
        String requires = REQUIRES.replace("osgi.serviceloader.registrar", "osgi.serviceloader.other");
        Manifest manifest = manifest(MODULE, EXPORTS, PROVIDES, requires);
        assertReported(DescriptorConsistency.disagreements(consistentModule(), manifest, consistentServices()),
                DescriptorConsistency.REGISTRAR);
    }

    @Test
    void usesWithoutRequirementIsReported() {
        String requires = REQUIRES.replace("(osgi.serviceloader=" + USED + ")", "(osgi.serviceloader=org.example.Other)");
        List<String> found = DescriptorConsistency.disagreements(consistentModule(),
                manifest(MODULE, EXPORTS, PROVIDES, requires), consistentServices());
        assertReported(found, USED, "not in Require-Capability");
        assertReported(found, "org.example.Other", "not in module-info uses");
    }

    @Test
    void consumerWithoutProcessorRequirementIsReported() {
        String requires = REQUIRES.replace("osgi.serviceloader.processor", "osgi.serviceloader.nothing");
        Manifest manifest = manifest(MODULE, EXPORTS, PROVIDES, requires);
        assertReported(DescriptorConsistency.disagreements(consistentModule(), manifest, consistentServices()),
                DescriptorConsistency.PROCESSOR);
    }

    @Test
    void plainModuleAndPlainManifestAgree() {
        ModuleDescriptor plain = module(MODULE).exports(API_PACKAGE).build();
        Manifest manifest = manifest(MODULE, API_PACKAGE, null, "osgi.ee;filter:=\"(&(osgi.ee=JavaSE)(version=25))\"");
        assertEquals(List.of(), DescriptorConsistency.disagreements(plain, manifest, Map.of()));
    }

    @Test
    void extenderRequirementWithoutServicesIsReported() {
        ModuleDescriptor plain = module(MODULE).exports(API_PACKAGE).build();
        List<String> found = DescriptorConsistency.disagreements(plain, manifest(MODULE, API_PACKAGE, null, REQUIRES), Map.of());
        assertReported(found, DescriptorConsistency.REGISTRAR, "provides nothing");
        assertReported(found, DescriptorConsistency.PROCESSOR, "uses nothing");
    }

    @Test
    void filterValuesFindsEqualityTermsOnly() {
        assertEquals(Set.of("osgi.serviceloader.registrar"), DescriptorConsistency.filterValues(
                "(&(osgi.extender=osgi.serviceloader.registrar)(version>=1.0.0))", "osgi.extender"));
        assertFalse(DescriptorConsistency.filterValues("(osgi.extenderx=a)", "osgi.extender").contains("a"));
    }
}
