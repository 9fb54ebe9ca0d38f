package org.lockstep.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** The launched ranks' AOT cache: which commands get one, what each rank is told, and the JVM's side with a real jar. */
@Timeout(120)
class RankStartCacheTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path dir;

    @Test
    void withoutACacheRankZerosFirstProcessRecordsAndTheOthersRunAsBefore() throws IOException {
        Path jar = probeJar(dir.resolve("probe.jar"));
        RankStartCache.Job job = RankStartCache.in(dir.resolve("cache")).forJob(command(jar, "a"), 1).orElseThrow();
        assertTrue(job.record().isPresent());
        assertTrue(job.options(0, ProcessLauncher.FIRST_INCARNATION).contains("-XX:AOTMode=record"), job.options(0, 1).toString());
        assertFalse(String.join(" ", job.options(0, 2)).contains("-XX:AOT"), "a restarted rank 0 records nothing");
        assertFalse(String.join(" ", job.options(1, 1)).contains("-XX:AOT"), "other ranks record nothing");
    }

    @Test
    void aClassDirectoryOnThePathOrAnAgentMeansNoCache() throws IOException {
        Path jar = probeJar(dir.resolve("probe.jar"));
        RankStartCache cache = RankStartCache.in(dir.resolve("cache"));
        assertTrue(cache.forJob(List.of(JAVA, "-cp", jar + ":" + dir, AotCacheProbe.class.getName()), 0).isEmpty());
        assertTrue(cache.forJob(List.of(JAVA, "-javaagent:" + jar, "-cp", jar.toString(), AotCacheProbe.class.getName()), 0).isEmpty());
    }

    @Test
    void aRebuiltJarNamesAnotherCache() throws IOException {
        Path jar = probeJar(dir.resolve("probe.jar"));
        RankStartCache cache = RankStartCache.in(dir.resolve("cache"));
        Path before = cache.forJob(command(jar), 0).orElseThrow().cache();
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
        assertNotEquals(before, cache.forJob(command(jar), 0).orElseThrow().cache());
    }

    @Test
    void aPathThatIsNotADirectoryIsRefused() throws IOException {
        Path file = Files.writeString(dir.resolve("file"), "x");
        LockstepException e = assertThrows(LockstepException.class, () -> RankStartCache.in(file));
        assertEquals(ErrorClass.ARG, e.errorClass());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    @Test
    void theRecordBecomesACacheTheNextStartUsesAndAStaleOneIsIgnoredQuietly() throws Exception {
        Path jar = probeJar(dir.resolve("probe.jar"));
        RankStartCache cache = RankStartCache.in(dir.resolve("cache"));
        RankStartCache.Job first = cache.forJob(command(jar, "one"), 1).orElseThrow();
        assertEquals("probe one", run(first, "one"));
        first.complete(true);
        assertTrue(Files.isRegularFile(first.cache()), "the cache was made");
        assertFalse(Files.exists(first.record().orElseThrow()), "the record is removed");

        RankStartCache.Job second = cache.forJob(command(jar, "two"), 1).orElseThrow();
        assertTrue(second.record().isEmpty());
        assertTrue(second.options(1, 1).contains("-XX:AOTCache=" + first.cache()), second.options(1, 1).toString());
        assertEquals("probe two", run(second, "two"));

        Files.writeString(first.cache(), "not a cache");
        assertEquals("probe three", run(second, "three"), "a broken cache: the JVM starts without it and prints nothing of it");
    }

    @Test
    void aRecordOfAFailedRankIsDroppedWithoutACache() throws Exception {
        Path jar = probeJar(dir.resolve("probe.jar"));
        RankStartCache.Job job = RankStartCache.in(dir.resolve("cache")).forJob(command(jar), 0).orElseThrow();
        Files.writeString(job.record().orElseThrow(), "partial");
        job.complete(false);
        assertFalse(Files.exists(job.record().orElseThrow()));
        assertFalse(Files.exists(job.cache()));
    }

    private static List<String> command(Path jar, String... arguments) {
        List<String> command = new ArrayList<>(List.of(JAVA, "-Xmx64m", "-cp", jar.toString(), AotCacheProbe.class.getName()));
        command.addAll(List.of(arguments));
        return command;
    }

    /** Runs rank 0's first process of {@code job} with {@code argument}; its output as the launcher copies it (it must end with 0). */
    private static String run(RankStartCache.Job job, String argument) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(job.jvmCommand().getFirst());
        command.addAll(job.options(0, ProcessLauncher.FIRST_INCARNATION));
        command.addAll(job.jvmCommand().subList(1, job.jvmCommand().size()));
        command.add(argument);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertEquals(0, p.waitFor(), output);
        RankOutput launcherCopy = new RankOutput(false, RankStartCache.recordNotice(command).orElse(null));
        return output.lines().map(launcherCopy::filter).filter(java.util.Objects::nonNull).collect(Collectors.joining("\n")).trim();
    }

    /** A jar holding {@link AotCacheProbe} alone. */
    private static Path probeJar(Path jar) throws IOException {
        String entry = AotCacheProbe.class.getName().replace('.', '/') + ".class";
        try (InputStream in = AotCacheProbe.class.getClassLoader().getResourceAsStream(entry);
             OutputStream file = Files.newOutputStream(jar);
             JarOutputStream out = new JarOutputStream(file)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
