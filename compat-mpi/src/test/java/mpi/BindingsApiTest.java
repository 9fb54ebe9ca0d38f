package mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/**
 * Every public class, constructor, method (with its return type and staticness) and field of Open
 * MPI 4.1's Java bindings is here with the same signature, so that a program compiled against
 * theirs compiles against these ({@code openmpi-4.1-java-api.txt}, one line per member).
 */
class BindingsApiTest {

    @Test
    void everyPublicMemberOfOpenMpis41BindingsExistsWithItsSignature() throws IOException, ClassNotFoundException {
        List<String> expected = expectedMembers();
        Set<String> ours = new TreeSet<>();
        for (String className : expected.stream().map(line -> line.substring(0, line.indexOf(' '))).distinct().toList()) {
            ours.addAll(members(Class.forName("mpi." + className, false, BindingsApiTest.class.getClassLoader())));
        }
        List<String> missing = new ArrayList<>();
        for (String line : expected) {
            if (!ours.contains(line)) {
                missing.add(line);
            }
        }
        assertEquals(List.of(), missing, "members of the bindings missing or with another signature here");
    }

    private static List<String> expectedMembers() throws IOException {
        InputStream in = BindingsApiTest.class.getResourceAsStream("openmpi-4.1-java-api.txt");
        assertNotNull(in, "openmpi-4.1-java-api.txt beside this test");
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return reader.lines().filter(line -> !line.isBlank() && !line.startsWith("#")).toList();
        }
    }

    /** The public members of {@code c} in the list's notation. */
    private static Set<String> members(Class<?> c) {
        Set<String> lines = new TreeSet<>();
        String name = c.getSimpleName();
        if (!Modifier.isPublic(c.getModifiers())) {
            return lines;
        }
        Class<?> parent = c.getSuperclass();
        lines.add(name + " class" + (parent != null && parent != Object.class ? " extends " + parent.getName() : ""));
        for (Constructor<?> k : c.getConstructors()) {
            lines.add(name + " new(" + parameters(k.getParameterTypes()) + ")");
        }
        for (Method m : c.getMethods()) {
            if (m.getDeclaringClass() != Object.class) {
                lines.add(name + " " + (Modifier.isStatic(m.getModifiers()) ? "static " : "") + m.getReturnType().getTypeName() + " "
                        + m.getName() + "(" + parameters(m.getParameterTypes()) + ")");
            }
        }
        for (Field f : c.getFields()) {
            lines.add(name + " " + (Modifier.isStatic(f.getModifiers()) ? "static " : "") + f.getType().getTypeName() + " " + f.getName());
        }
        return lines;
    }

    private static String parameters(Class<?>[] types) {
        StringJoiner joined = new StringJoiner(",");
        for (Class<?> t : types) {
            joined.add(t.getTypeName());
        }
        return joined.toString();
    }
}
