package org.lockstep.bundles;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses an OSGi manifest header ({@code Export-Package}, {@code Provide-Capability}, ...) into its
 * clauses, following the grammar of OSGi Core §3.2.4: clauses separated by commas, each clause one
 * or more names followed by {@code key=value} attributes and {@code key:=value} directives,
 * separated by semicolons; values may be double-quoted and then contain commas and semicolons.
 * Typed attributes ({@code version:Version=1.0}) keep only their name.
 */
final class ManifestHeader {
    private ManifestHeader() {
    }

    /** One clause of a header: its names (packages, namespaces), attributes and directives. */
    record Clause(List<String> names, Map<String, String> attributes, Map<String, String> directives) {
        String name() {
            return names.getFirst();
        }

        String attribute(String key) {
            return attributes.get(key);
        }

        String directive(String key) {
            return directives.get(key);
        }
    }

    /** The clauses of {@code header}; an absent or blank header has none. */
    static List<Clause> parse(String header) {
        List<Clause> clauses = new ArrayList<>();
        if (header == null || header.isBlank()) {
            return clauses;
        }
        for (String clause : split(header, ',')) {
            if (!clause.isBlank()) {
                clauses.add(parseClause(clause));
            }
        }
        return clauses;
    }

    private static Clause parseClause(String clause) {
        List<String> names = new ArrayList<>();
        Map<String, String> attributes = new LinkedHashMap<>();
        Map<String, String> directives = new LinkedHashMap<>();
        for (String part : split(clause, ';')) {
            String element = part.strip();
            int equals = indexOfUnquoted(element, '=');
            if (equals < 0) {
                if (!attributes.isEmpty() || !directives.isEmpty()) {
                    throw new IllegalArgumentException("name '" + element + "' after parameters in clause: " + clause);
                }
                names.add(element);
            } else if (equals > 0 && element.charAt(equals - 1) == ':') {
                directives.put(element.substring(0, equals - 1).strip(), unquote(element.substring(equals + 1)));
            } else {
                String key = element.substring(0, equals).strip();
                int type = key.indexOf(':');
                attributes.put(type < 0 ? key : key.substring(0, type).strip(), unquote(element.substring(equals + 1)));
            }
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("clause without a name: " + clause);
        }
        return new Clause(List.copyOf(names), Map.copyOf(attributes), Map.copyOf(directives));
    }

    /** Splits at {@code separator} outside double quotes. */
    private static List<String> split(String text, char separator) {
        List<String> parts = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == separator && !quoted) {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        if (quoted) {
            throw new IllegalArgumentException("unbalanced quote in header: " + text);
        }
        parts.add(current.toString());
        return parts;
    }

    private static int indexOfUnquoted(String text, char wanted) {
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == wanted && !quoted) {
                return i;
            }
        }
        return -1;
    }

    private static String unquote(String value) {
        String stripped = value.strip();
        if (stripped.length() >= 2 && stripped.startsWith("\"") && stripped.endsWith("\"")) {
            return stripped.substring(1, stripped.length() - 1);
        }
        return stripped;
    }
}
