package org.lockstep.bundles;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The jars this module's build hands to its integration tests (see the dependency plugin in its pom). */
final class ReactorJars {
    /** Lockstep's own packaged jars. */
    static final String PRODUCT_JARS = "lockstep.product.jars";
    /** Everything the product needs at run time, plus the ServiceLoader mediator: Felix's bundles. */
    static final String RUNTIME_BUNDLES = "lockstep.runtime.bundles";

    private ReactorJars() {
    }

    static List<Path> list(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank() || value.startsWith("${")) {
            throw new IllegalStateException("system property " + property + " is not set (got '" + value
                    + "'); run the tests through 'mvn verify', which lists the jars");
        }
        return Arrays.stream(value.split(File.pathSeparator)).filter(s -> !s.isBlank()).map(Path::of).toList();
    }
}
