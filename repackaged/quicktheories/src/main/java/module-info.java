/**
 * QuickTheories 0.26, repackaged unchanged with this descriptor: its own jar has no module name, so
 * the module system would name it after the file ("quicktheories") and Maven warns that such a
 * project must not be published. The classes come from org.quicktheories:quicktheories at build
 * time (maven-dependency-plugin unpacks them before this file is compiled against them).
 */
module org.quicktheories {
    exports org.quicktheories;
    exports org.quicktheories.api;
    exports org.quicktheories.core;
    exports org.quicktheories.core.stateful;
    exports org.quicktheories.dsl;
    exports org.quicktheories.generators;
    exports org.quicktheories.impl;

    // Configuration looks for an optional coverage-guidance plug-in with ServiceLoader.
    uses org.quicktheories.core.GuidanceFactory;
}
