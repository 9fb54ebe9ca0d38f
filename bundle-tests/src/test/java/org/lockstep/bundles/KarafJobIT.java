package org.lockstep.bundles;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.osgi.framework.BundleActivator;

/**
 * A job inside a real Apache Karaf distribution (unpacked by the build from the Maven repository):
 * Karaf boots with Lockstep's features repository and installs feature {@code lockstep} (the API,
 * the SPI, the mailbox transport, the devices, the DS provider, SPI Fly, SCR); Karaf's file
 * install hands {@code etc/org.lockstep.provider.cfg} to Configuration Admin; a bundle dropped into
 * {@code deploy/} waits for the configured provider service and runs four ranks (threads of the
 * framework) that pass numbers around a ring and reduce them, and writes what each rank got.
 *
 * <p>Karaf 4.4 on JDK 25: its start script adds {@code -Djava.security.manager=allow}, which JDK 24
 * and later refuse, so the test sets {@code JAVA_OPTS} (the script then adds none of its own); and
 * its Event Admin adds the sender's {@code Subject} to each event through
 * {@code Subject.getSubject}, which throws {@code UnsupportedOperationException} on JDK 24 and later
 * and stops the features service, so {@code org.apache.felix.eventadmin.AddSubject} is turned off.
 */
@Timeout(600)
class KarafJobIT {
    private static final String KARAF_HOME = "lockstep.karaf.home";
    private static final String FEATURES = "lockstep.karaf.features";
    private static final String MAVEN_REPOSITORY = "lockstep.maven.repository";
    private static final Duration JOB_WAIT = Duration.ofMinutes(4);
    private static final int RANKS = 4;

    /** The job's bundle: an activator that runs the ring on the configured provider in a thread of its own. */
    private static final String RING_ACTIVATOR = """
            package com.example.karafring;

            import java.lang.foreign.MemorySegment;
            import java.nio.charset.StandardCharsets;
            import java.nio.file.Files;
            import java.nio.file.Path;
            import java.nio.file.StandardCopyOption;
            import java.util.concurrent.CountDownLatch;
            import java.util.concurrent.TimeUnit;
            import java.util.concurrent.atomic.AtomicLongArray;

            import org.lockstep.api.Datatype;
            import org.lockstep.api.JobOptions;
            import org.lockstep.api.LockstepProvider;
            import org.lockstep.api.Op;
            import org.osgi.framework.BundleActivator;
            import org.osgi.framework.BundleContext;
            import org.osgi.framework.ServiceReference;

            public final class RingActivator implements BundleActivator {
                private static final String CONFIGURED = "(org.lockstep.configured=true)";
                private static final int RANKS = %d;

                @Override
                public void start(BundleContext context) {
                    Path result = Path.of(context.getProperty("karaf.data"), "lockstep-ring.txt");
                    Thread.ofPlatform().name("lockstep-karaf-ring").start(() -> run(context, result));
                }

                @Override
                public void stop(BundleContext context) {
                }

                private static void run(BundleContext context, Path result) {
                    StringBuilder said = new StringBuilder();
                    try {
                        ServiceReference<LockstepProvider> reference = configured(context);
                        LockstepProvider provider = context.getService(reference);
                        said.append("provider ").append(provider.name()).append('\\n');
                        AtomicLongArray received = new AtomicLongArray(RANKS);
                        AtomicLongArray sums = new AtomicLongArray(RANKS);
                        provider.runInThreads(JobOptions.ofRanks(RANKS), world -> {
                            int next = (world.rank() + 1) %% world.size();
                            int previous = (world.rank() + world.size() - 1) %% world.size();
                            long[] out = {100 + world.rank()};
                            long[] in = new long[1];
                            world.sendrecv(MemorySegment.ofArray(out), 1, Datatype.LONG, next, 0,
                                    MemorySegment.ofArray(in), 1, Datatype.LONG, previous, 0);
                            received.set(world.rank(), in[0]);
                            long[] sum = new long[1];
                            world.allreduce(MemorySegment.ofArray(out), MemorySegment.ofArray(sum), 1, Datatype.LONG, Op.SUM);
                            sums.set(world.rank(), sum[0]);
                        });
                        context.ungetService(reference);
                        for (int r = 0; r < RANKS; r++) {
                            said.append("rank ").append(r).append(" received ").append(received.get(r))
                                    .append(" sum ").append(sums.get(r)).append('\\n');
                        }
                    } catch (Throwable failed) {
                        said.append("failed: ").append(failed).append('\\n');
                    }
                    try {
                        Path written = Files.writeString(result.resolveSibling("lockstep-ring.tmp"), said, StandardCharsets.UTF_8);
                        Files.move(written, result, StandardCopyOption.ATOMIC_MOVE);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }

                /** The provider Configuration Admin configured: there at once, or once the DS component gets its configuration. */
                private static ServiceReference<LockstepProvider> configured(BundleContext context) throws Exception {
                    CountDownLatch registered = new CountDownLatch(1);
                    context.addServiceListener(event -> registered.countDown(),
                            "(&(objectClass=" + LockstepProvider.class.getName() + ")" + CONFIGURED + ")");
                    var references = context.getServiceReferences(LockstepProvider.class, CONFIGURED);
                    if (references.isEmpty()) {
                        if (!registered.await(3, TimeUnit.MINUTES)) {
                            throw new IllegalStateException("no configured Lockstep provider service after 3 minutes");
                        }
                        references = context.getServiceReferences(LockstepProvider.class, CONFIGURED);
                    }
                    return references.iterator().next();
                }
            }
            """.formatted(RANKS);

    @Test
    void aBundleRunsAJobOnTheLockstepFeatureInApacheKaraf() throws Exception {
        Path home = freshCopy(Path.of(property(KARAF_HOME)), Path.of("target/karaf-job"));
        try (Stream<Path> scripts = Files.list(home.resolve("bin"))) {
            scripts.forEach(script -> script.toFile().setExecutable(true));
        }
        allowKarafOnThisJdk(home);
        Path features = featuresOfThisBuild(home);
        bootWithLockstep(home, features);
        Files.writeString(home.resolve("etc/org.lockstep.provider.cfg"), "provider = mailbox\nlockstep.mailbox.slots = 8\n");
        Files.copy(ringBundle(home.resolve("ring-build")), home.resolve("deploy/karaf-ring.jar"));

        Path result = home.resolve("data/lockstep-ring.txt");
        Path console = home.resolve("karaf-console.log");
        ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/karaf").toString(), "daemon")
                .directory(home.toFile()).redirectErrorStream(true).redirectOutput(console.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        // set: the script then adds no -Djava.security.manager=allow, which JDK 24+ refuse at start-up
        builder.environment().put("JAVA_OPTS", "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow");
        Process karaf = builder.start();
        try {
            await("the ring job's result in " + result).atMost(JOB_WAIT).pollInterval(Duration.ofMillis(500))
                    .until(() -> Files.exists(result) || !karaf.isAlive() || bootFeaturesFailed(home));
            assertTrue(!bootFeaturesFailed(home), "Karaf could not install its boot features: " + tail(home.resolve("data/log/karaf.log")));
            assertTrue(Files.exists(result), "Karaf ended (exit " + (karaf.isAlive() ? "-" : karaf.exitValue()) + ") before the job ran; "
                    + "console: " + tail(console) + "; log: " + tail(home.resolve("data/log/karaf.log")));
            List<String> lines = Files.readAllLines(result);
            List<String> expected = new ArrayList<>(List.of("provider mailbox"));
            for (int r = 0; r < RANKS; r++) {
                expected.add("rank " + r + " received " + RingJob.expectedReceived(r, RANKS) + " sum " + RingJob.expectedSum(RANKS));
            }
            assertEquals(expected, lines, "karaf log: " + tail(home.resolve("data/log/karaf.log")));
        } finally {
            stop(karaf);
        }
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank() || value.startsWith("${")) {
            throw new IllegalStateException("system property " + name + " is not set; run the tests through 'mvn verify'");
        }
        return value;
    }

    /** A copy of the unpacked distribution, so that every run boots a Karaf that has never run. */
    private static Path freshCopy(Path distribution, Path target) throws IOException {
        deleteTree(target);
        try (Stream<Path> files = Files.walk(distribution)) {
            for (Path from : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(distribution.relativize(from).toString());
                if (Files.isDirectory(from)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return target.toAbsolutePath();
    }

    private static void deleteTree(Path root) throws IOException {
        if (Files.exists(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    /** Karaf's Event Admin must not ask for the caller's Subject: Subject.getSubject throws on JDK 24+. */
    private static void allowKarafOnThisJdk(Path home) throws IOException {
        edit(home.resolve("etc/org.apache.felix.eventadmin.impl.EventAdmin.cfg"),
                Map.of("org.apache.felix.eventadmin.AddSubject=true", "org.apache.felix.eventadmin.AddSubject=false"));
        // Karaf resolves the features' mvn: bundles (ASM, SPI Fly) in this build's local repository
        Files.writeString(home.resolve("etc/org.ops4j.pax.url.mvn.cfg"),
                "\norg.ops4j.pax.url.mvn.localRepository = " + Path.of(property(MAVEN_REPOSITORY)).toAbsolutePath() + "\n",
                java.nio.file.StandardOpenOption.APPEND);
    }

    /**
     * This build's features repository (osgi module, classifier features), its Lockstep bundles taken
     * from the jars this reactor packaged (a test does not install them into a Maven repository).
     */
    private static Path featuresOfThisBuild(Path home) throws IOException {
        String xml = Files.readString(Path.of(property(FEATURES)));
        Map<String, Path> jars = new java.util.HashMap<>();
        for (Path jar : ReactorJars.list(ReactorJars.PRODUCT_JARS)) {
            jars.put(jar.getFileName().toString(), jar);
        }
        java.util.regex.Matcher bundle = java.util.regex.Pattern.compile("mvn:org\\.lockstep/([^/<]+)/([^/<]+)<").matcher(xml);
        StringBuilder rewritten = new StringBuilder();
        while (bundle.find()) {
            Path jar = jars.get(bundle.group(1) + "-" + bundle.group(2) + ".jar");
            assertTrue(jar != null, "the feature's " + bundle.group() + " is a jar of this build: " + jars.keySet());
            bundle.appendReplacement(rewritten, java.util.regex.Matcher.quoteReplacement(jar.toUri() + "<"));
        }
        xml = bundle.appendTail(rewritten).toString();
        assertTrue(!xml.contains(">mvn:org.lockstep/"), "every Lockstep bundle of the feature is a jar of this build: " + xml);
        return Files.writeString(home.resolve("lockstep-features.xml"), xml);
    }

    /** Karaf boots with Lockstep's features repository and installs feature lockstep. */
    private static void bootWithLockstep(Path home, Path features) throws IOException {
        edit(home.resolve("etc/org.apache.karaf.features.cfg"), Map.of(
                "featuresRepositories = \\\n", "featuresRepositories = \\\n    " + features.toUri() + ", \\\n",
                "featuresBoot = \\\n", "featuresBoot = \\\n    lockstep, \\\n"));
    }

    private static void edit(Path file, Map<String, String> replacements) throws IOException {
        String text = Files.readString(file);
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            assertTrue(text.contains(r.getKey()), file + " has '" + r.getKey() + "'");
            text = text.replace(r.getKey(), r.getValue());
        }
        Files.writeString(file, text);
    }

    /** The job's bundle, compiled against the API jar and the OSGi framework API with the JDK's compiler. */
    private static Path ringBundle(Path dir) throws IOException {
        Path sources = Files.createDirectories(dir.resolve("src/com/example/karafring"));
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Path source = Files.writeString(sources.resolve("RingActivator.java"), RING_ACTIVATOR);
        Path api = ReactorJars.list(ReactorJars.PRODUCT_JARS).stream()
                .filter(p -> p.getFileName().toString().startsWith("lockstep-api-")).findFirst().orElseThrow();
        String osgi = Path.of(BundleActivator.class.getProtectionDomain().getCodeSource().getLocation().getPath()).toString();
        StringWriter said = new StringWriter();
        int exit = ToolProvider.findFirst("javac").orElseThrow().run(new PrintWriter(said, true), new PrintWriter(said, true),
                "--release", "25", "-cp", api + java.io.File.pathSeparator + osgi, "-d", classes.toString(), source.toString());
        assertEquals(0, exit, "javac: " + said);
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Bundle-ManifestVersion", "2");
        main.putValue("Bundle-SymbolicName", "com.example.karafring");
        main.putValue("Bundle-Version", "1.0.0");
        main.putValue("Bundle-Activator", "com.example.karafring.RingActivator");
        main.putValue("Import-Package", "org.lockstep.api,org.osgi.framework");
        Path jar = dir.resolve("karaf-ring.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
             Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(file));
                out.closeEntry();
            }
        }
        return jar;
    }

    /** Stops Karaf (its shutdown hook stops the framework); forcibly if it does not end within a minute. */
    private static void stop(Process karaf) throws InterruptedException {
        karaf.destroy();
        if (!karaf.waitFor(Duration.ofMinutes(1))) {
            karaf.descendants().forEach(ProcessHandle::destroyForcibly);
            karaf.destroyForcibly();
            karaf.waitFor();
        }
    }

    /** Karaf logged that a boot feature (repository) could not be installed: the job's bundle would wait in vain. */
    private static boolean bootFeaturesFailed(Path home) throws IOException {
        Path log = home.resolve("data/log/karaf.log");
        return Files.exists(log) && Files.readString(log).contains("| BootFeaturesInstaller ") && Files.readString(log).contains("Error installing boot feature");
    }

    /** The last lines of a log, for a failure message. */
    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no " + log + ": " + e.getMessage() + ")";
        }
    }
}
