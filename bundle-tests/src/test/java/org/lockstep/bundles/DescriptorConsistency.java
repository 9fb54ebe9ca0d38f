package org.lockstep.bundles;

import java.lang.module.ModuleDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Compares what a jar tells the module system ({@code module-info.class}) with what it tells OSGi
 * and the class path ({@code MANIFEST.MF}, {@code META-INF/services}), and lists every place they
 * disagree. The rules (docs/design.md §1):
 * <ul>
 *   <li>{@code Bundle-SymbolicName} is the module name;</li>
 *   <li>the exported packages are the {@code Export-Package} packages;</li>
 *   <li>{@code provides S with I} ⇔ {@code META-INF/services/S} lists {@code I} ⇔
 *       {@code Provide-Capability: osgi.serviceloader;osgi.serviceloader=S}, and a provider
 *       requires the {@code osgi.serviceloader.registrar} extender that publishes it;</li>
 *   <li>{@code uses S} ⇔ a {@code Require-Capability: osgi.serviceloader} whose filter names
 *       {@code S}, and a consumer requires the {@code osgi.serviceloader.processor} extender.</li>
 * </ul>
 */
final class DescriptorConsistency {
    static final String SERVICE_LOADER_NAMESPACE = "osgi.serviceloader";
    static final String EXTENDER_NAMESPACE = "osgi.extender";
    static final String REGISTRAR = "osgi.serviceloader.registrar";
    static final String PROCESSOR = "osgi.serviceloader.processor";
    private static final String REGISTER_DIRECTIVE = "register";
    private static final String FILTER_DIRECTIVE = "filter";

    private DescriptorConsistency() {
    }

    /** Every disagreement between the three sources, each naming the offending value; empty if they agree. */
    static List<String> disagreements(ModuleDescriptor module, Manifest manifest, Map<String, List<String>> serviceFiles) {
        List<String> found = new ArrayList<>();
        Attributes main = manifest.getMainAttributes();
        checkSymbolicName(module, main, found);
        checkExports(module, main, found);
        checkProvides(module, main, serviceFiles, found);
        checkUses(module, main, found);
        return found;
    }

    private static void checkSymbolicName(ModuleDescriptor module, Attributes main, List<String> found) {
        List<ManifestHeader.Clause> clauses = ManifestHeader.parse(main.getValue("Bundle-SymbolicName"));
        if (clauses.isEmpty()) {
            found.add("no Bundle-SymbolicName; module is " + module.name());
        } else if (!clauses.getFirst().name().equals(module.name())) {
            found.add("Bundle-SymbolicName " + clauses.getFirst().name() + " is not the module name " + module.name());
        }
    }

    private static void checkExports(ModuleDescriptor module, Attributes main, List<String> found) {
        // A qualified export (impl-pcie's ring to the white-box bench module) has no bundle counterpart.
        Set<String> moduleExports = module.exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> bundleExports = new TreeSet<>();
        for (ManifestHeader.Clause clause : ManifestHeader.parse(main.getValue("Export-Package"))) {
            bundleExports.addAll(clause.names());
        }
        compare("exported package", "module-info exports", moduleExports, "Export-Package", bundleExports, found);
    }

    private static void checkProvides(ModuleDescriptor module, Attributes main, Map<String, List<String>> serviceFiles,
                                      List<String> found) {
        Map<String, Set<String>> provides = new TreeMap<>();
        for (ModuleDescriptor.Provides p : module.provides()) {
            provides.put(p.service(), new TreeSet<>(p.providers()));
        }
        Map<String, Set<String>> listed = new TreeMap<>();
        serviceFiles.forEach((service, providers) -> listed.put(service, new TreeSet<>(providers)));
        compare("provided service", "module-info provides", provides.keySet(), "META-INF/services", listed.keySet(), found);
        for (String service : provides.keySet()) {
            if (listed.containsKey(service)) {
                compare("provider of " + service, "module-info provides", provides.get(service),
                        "META-INF/services/" + service, listed.get(service), found);
            }
        }

        Set<String> capabilities = new TreeSet<>();
        for (ManifestHeader.Clause clause : ManifestHeader.parse(main.getValue("Provide-Capability"))) {
            if (!clause.names().contains(SERVICE_LOADER_NAMESPACE)) {
                continue;
            }
            String service = clause.attribute(SERVICE_LOADER_NAMESPACE);
            if (service == null) {
                found.add("Provide-Capability osgi.serviceloader without an osgi.serviceloader attribute");
                continue;
            }
            capabilities.add(service);
            String registered = clause.directive(REGISTER_DIRECTIVE);
            if (registered != null && !provides.getOrDefault(service, Set.of()).contains(registered)) {
                found.add("Provide-Capability registers " + registered + " for " + service
                        + ", which module-info does not provide with it");
            }
        }
        compare("provided service", "module-info provides", provides.keySet(),
                "Provide-Capability osgi.serviceloader", capabilities, found);

        boolean registrar = requiresExtender(main, REGISTRAR);
        if (!provides.isEmpty() && !registrar) {
            found.add("provides " + provides.keySet() + " but Require-Capability lacks the osgi.extender "
                    + REGISTRAR + " that publishes them");
        } else if (provides.isEmpty() && registrar) {
            found.add("Require-Capability asks for the osgi.extender " + REGISTRAR + " but module-info provides nothing");
        }
    }

    private static void checkUses(ModuleDescriptor module, Attributes main, List<String> found) {
        Set<String> uses = new TreeSet<>(module.uses());
        Set<String> required = new TreeSet<>();
        for (ManifestHeader.Clause clause : ManifestHeader.parse(main.getValue("Require-Capability"))) {
            if (clause.names().contains(SERVICE_LOADER_NAMESPACE)) {
                required.addAll(filterValues(clause.directive(FILTER_DIRECTIVE), SERVICE_LOADER_NAMESPACE));
            }
        }
        compare("used service", "module-info uses", uses, "Require-Capability osgi.serviceloader", required, found);

        boolean processor = requiresExtender(main, PROCESSOR);
        if (!uses.isEmpty() && !processor) {
            found.add("uses " + uses + " but Require-Capability lacks the osgi.extender " + PROCESSOR
                    + " that makes ServiceLoader work in OSGi");
        } else if (uses.isEmpty() && processor) {
            found.add("Require-Capability asks for the osgi.extender " + PROCESSOR + " but module-info uses nothing");
        }
    }

    /** Whether some {@code osgi.extender} requirement's filter names {@code extender}. */
    static boolean requiresExtender(Attributes main, String extender) {
        for (ManifestHeader.Clause clause : ManifestHeader.parse(main.getValue("Require-Capability"))) {
            if (clause.names().contains(EXTENDER_NAMESPACE)
                    && filterValues(clause.directive(FILTER_DIRECTIVE), EXTENDER_NAMESPACE).contains(extender)) {
                return true;
            }
        }
        return false;
    }

    /** The values an LDAP filter compares {@code key} with for equality, e.g. {@code (key=value)}. */
    static Set<String> filterValues(String filter, String key) {
        Set<String> values = new TreeSet<>();
        if (filter == null) {
            return values;
        }
        Matcher m = Pattern.compile("\\(\\s*" + Pattern.quote(key) + "\\s*=([^)]*)\\)").matcher(filter);
        while (m.find()) {
            values.add(m.group(1).strip());
        }
        return values;
    }

    private static void compare(String what, String leftName, Set<String> left, String rightName, Set<String> right,
                                List<String> found) {
        for (String value : left) {
            if (!right.contains(value)) {
                found.add(what + " " + value + " is in " + leftName + " but not in " + rightName);
            }
        }
        for (String value : right) {
            if (!left.contains(value)) {
                found.add(what + " " + value + " is in " + rightName + " but not in " + leftName);
            }
        }
    }
}
