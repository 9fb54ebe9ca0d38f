package org.lockstep.bundles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

class ManifestHeaderTest {
    @Test
    void quotedValuesKeepTheirCommasAndSemicolons() {
        List<ManifestHeader.Clause> clauses = ManifestHeader.parse(
                "org.a;org.b;version=\"1.0\";uses:=\"org.c,org.d\",org.e;version:Version=\"[1,2)\"");
        assertEquals(2, clauses.size());
        assertEquals(List.of("org.a", "org.b"), clauses.get(0).names());
        assertEquals("1.0", clauses.get(0).attribute("version"));
        assertEquals("org.c,org.d", clauses.get(0).directive("uses"));
        assertEquals("org.e", clauses.get(1).name());
        assertEquals("[1,2)", clauses.get(1).attribute("version"));
    }

    @Test
    void directiveHoldingAFilterIsOneValue() {
        ManifestHeader.Clause clause = ManifestHeader.parse(
                "osgi.ee;filter:=\"(&(osgi.ee=JavaSE)(version=25))\"").getFirst();
        assertEquals("osgi.ee", clause.name());
        assertEquals("(&(osgi.ee=JavaSE)(version=25))", clause.directive("filter"));
    }

    @Test
    void absentHeaderHasNoClauses() {
        assertEquals(List.of(), ManifestHeader.parse(null));
        assertEquals(List.of(), ManifestHeader.parse("  "));
    }

    @Test
    void malformedHeadersAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> ManifestHeader.parse("org.a;version=\"1.0"));
        assertThrows(IllegalArgumentException.class, () -> ManifestHeader.parse("version=1.0"));
        assertThrows(IllegalArgumentException.class, () -> ManifestHeader.parse("org.a;version=1;org.b"));
    }
}
