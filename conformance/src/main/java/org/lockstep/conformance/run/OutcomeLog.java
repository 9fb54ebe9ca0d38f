package org.lockstep.conformance.run;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleOutcome;

/**
 * How a launched job tells the kit what its rules did: rank 0 appends a {@code start ID} line
 * before each rule and an {@code outcome BASE64} line after it, so that the kit sees which rule
 * a job that ended early was in. {@link #encode}/{@link #decode} also carry one process's outcome
 * to the others.
 */
public final class OutcomeLog {
    private static final String START = "start ";
    /** The line rank 0 prints to the job's output as a rule starts. */
    public static final String RULE_MARK = "kit: rule ";
    private static final String OUTCOME = "outcome ";

    private final Path file;

    public OutcomeLog(Path file) {
        this.file = file;
    }

    /** The directory of the log: the job's own, which every process of the job sees. */
    public Path directory() {
        return file.toAbsolutePath().getParent();
    }

    /** What the file says so far. */
    public record Entries(List<RuleOutcome> outcomes, Optional<String> unfinished) {
    }

    void started(Rule rule) {
        append(START + rule.id());
    }

    void finished(RuleOutcome outcome) {
        append(OUTCOME + Base64.getEncoder().encodeToString(encode(outcome)));
    }

    private void append(String line) {
        try {
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    StandardOpenOption.SYNC);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the kit's outcome log " + file, e);
        }
    }

    /** The outcomes written so far, and the rule started but not finished, if one was. */
    public Entries read() {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            lines = List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the kit's outcome log " + file, e);
        }
        List<RuleOutcome> outcomes = new ArrayList<>();
        String unfinished = null;
        for (String line : lines) {
            if (line.startsWith(START)) {
                unfinished = line.substring(START.length());
            } else if (line.startsWith(OUTCOME)) {
                outcomes.add(decode(Base64.getDecoder().decode(line.substring(OUTCOME.length()))));
                unfinished = null;
            }
        }
        return new Entries(outcomes, Optional.ofNullable(unfinished));
    }

    static byte[] encode(RuleOutcome o) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(o.rule().id());
            out.writeUTF(o.verdict().name());
            writeText(out, o.message());
            writeText(out, o.details());
            out.writeBoolean(o.seed().isPresent());
            out.writeLong(o.seed().orElse(0));
            out.writeLong(o.elapsed().toNanos());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static RuleOutcome decode(byte[] data) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            Rule rule = rule(in.readUTF());
            RuleOutcome.Verdict verdict = RuleOutcome.Verdict.valueOf(in.readUTF());
            String message = readText(in);
            String details = readText(in);
            boolean seeded = in.readBoolean();
            long seed = in.readLong();
            return new RuleOutcome(rule, verdict, message, details, seeded ? OptionalLong.of(seed) : OptionalLong.empty(),
                    Duration.ofNanos(in.readLong()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The catalog's rule {@code id}. */
    public static Rule rule(String id) {
        return RuleCatalog.all().stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no rule " + id));
    }

    private static void writeText(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readText(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
