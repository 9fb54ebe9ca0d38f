package org.lockstep.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Draws the plots the tools describe as gnuplot scripts, by running gnuplot on them. Without
 * gnuplot the data and the script stay, and {@link Outcome#message()} says how to draw them later.
 */
final class Gnuplot {
    /** How long one plot may take; gnuplot draws a bench file's plot in well under a second. */
    private static final long DRAW_SECONDS = 60;

    private final String executable;

    /** gnuplot as found on the {@code PATH}. */
    Gnuplot() {
        this("gnuplot");
    }

    /** gnuplot as {@code executable} (a name looked up on the {@code PATH}, or a path). */
    Gnuplot(String executable) {
        this.executable = executable;
    }

    /** What became of a plot: drawn (to {@code image}), or not, and why, with how to draw it. */
    record Outcome(boolean drawn, Path image, String message) {
    }

    /**
     * Runs the script in its own directory (scripts name their data and image files relative to
     * it) and reports whether {@code image} was drawn.
     */
    Outcome draw(Path script, Path image) {
        Path directory = script.toAbsolutePath().getParent();
        String byHand = "draw it with: cd " + directory + " && gnuplot " + script.getFileName();
        Process process;
        try {
            process = new ProcessBuilder(List.of(executable, script.getFileName().toString()))
                    .directory(directory.toFile()).redirectErrorStream(true).start();
        } catch (IOException notFound) {
            return new Outcome(false, image, "gnuplot (" + executable + ") is not installed; " + byHand);
        }
        try {
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(DRAW_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Outcome(false, image, "gnuplot took longer than " + DRAW_SECONDS + " s; " + byHand);
            }
            if (process.exitValue() != 0) {
                String said = new String(output, StandardCharsets.UTF_8).strip();
                return new Outcome(false, image, "gnuplot failed (exit " + process.exitValue() + "): " + said + "; " + byHand);
            }
            return new Outcome(true, image, "plot " + image);
        } catch (IOException e) {
            return new Outcome(false, image, "gnuplot could not be read from: " + e.getMessage() + "; " + byHand);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Outcome(false, image, "interrupted while gnuplot drew; " + byHand);
        }
    }
}
