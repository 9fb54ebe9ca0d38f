package org.lockstep.bundles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * A clone of the repository with nothing beside it must build, test and benchmark: no file may
 * point at a folder next to the clone or at the machine it was written on.
 */
class RepositoryStandsAloneTest {
    /**
     * The reference shelf beside the clone, and the machine it was written on (its work tree, the
     * team's notes and locks); spelled in two parts so that this file does not name them itself.
     */
    private static final List<String> OUTSIDE_PATHS = List.of(".." + "/shared", "/work" + "/");
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of(".git", "target", "node_modules");

    @Test
    void noCommittedFilePointsOutsideTheRepository() throws IOException {
        Path root = repositoryRoot();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile)
                    .filter(file -> !inSkippedDirectory(root.relativize(file)))
                    .forEach(file -> {
                        String text = textOf(file);
                        for (String outside : OUTSIDE_PATHS) {
                            if (text.contains(outside)) {
                                offenders.add(root.relativize(file) + " names " + outside);
                            }
                        }
                    });
        }
        assertEquals(List.of(), offenders);
    }

    private static boolean inSkippedDirectory(Path relative) {
        for (Path part : relative) {
            if (SKIPPED_DIRECTORIES.contains(part.toString())) {
                return true;
            }
        }
        return false;
    }

    /** A file's text, or nothing for files that are not UTF-8 text (images, jars). */
    private static String textOf(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (MalformedInputException binary) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory of the parent POM: the module's working directory's parent. */
    private static Path repositoryRoot() {
        Path root = Path.of("").toAbsolutePath().getParent();
        assertTrue(Files.isRegularFile(root.resolve("pom.xml")) && Files.isDirectory(root.resolve("bundle-tests")),
                "tests run in the bundle-tests module directory; parent is " + root);
        return root;
    }
}
