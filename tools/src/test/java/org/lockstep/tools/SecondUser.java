package org.lockstep.tools;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * A second OS user for tests that need someone else's files: created with {@code useradd} (as
 * root), removed on close. Commands run as it through {@code runuser}.
 */
final class SecondUser implements AutoCloseable {
    private final String name;
    private final int uid;

    private SecondUser(String name, int uid) {
        this.name = name;
        this.uid = uid;
    }

    /** A new system user without a home directory or login shell. */
    static SecondUser create() throws IOException, InterruptedException {
        String name = "lockstep-t" + Long.toHexString(new SecureRandom().nextLong() & 0xffffffL);
        exec("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name);
        try {
            return new SecondUser(name, Integer.parseInt(exec("id", "-u", name).trim()));
        } catch (IOException | RuntimeException e) {
            exec("userdel", name);
            throw e;
        }
    }

    int uid() {
        return uid;
    }

    /** Runs {@code script} with {@code sh -c} as this user; fails if it fails. */
    void run(String script) throws IOException, InterruptedException {
        exec("runuser", "-u", name, "--", "sh", "-c", script);
    }

    /** Removes the user; an interrupt is kept on the thread and reported as an I/O failure naming the user left behind. */
    @Override
    public void close() throws IOException {
        try {
            exec("userdel", name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while removing user " + name + "; it may still exist");
        }
    }

    private static String exec(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }
}
