package org.lockstep.tools.plot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The plot of an EM-BSP bench file (the gnuplot data the simulator writes with
 * {@code lockstep.embsp.benchOut}): seconds per virtual superstep above, MiB of swap and of
 * delivery I/O per superstep below. Columns of the data file:
 * {@code superstep seconds swap_in_bytes swap_out_bytes delivery_read_bytes delivery_write_bytes io_ops};
 * {@code #} lines are comments, the first holds the run's key=value line.
 */
public final class BenchPlot {
    static final int WIDTH = 1000;
    static final int HEIGHT = 640;
    static final int TIME_COLOUR = 0x2060C0;
    static final int SWAP_COLOUR = 0xD06010;
    static final int DELIVERY_COLOUR = 0x209040;
    static final double MIB = 1 << 20;
    private static final int COLUMNS = 7;

    private BenchPlot() {
    }

    /** The data of one bench file. */
    public record BenchData(Map<String, String> run, double[] superstep, double[] seconds, double[] swapMiB, double[] deliveryMiB) {
    }

    /** Reads a bench data file. */
    public static BenchData read(Path file) throws IOException {
        Map<String, String> run = new LinkedHashMap<>();
        List<double[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String t = line.trim();
            if (t.isEmpty()) {
                continue;
            }
            if (t.startsWith("#")) {
                if (run.isEmpty() && t.contains("vps=")) {
                    for (String field : t.substring(1).trim().split("\\s+")) {
                        int eq = field.indexOf('=');
                        if (eq > 0) {
                            run.put(field.substring(0, eq), field.substring(eq + 1));
                        }
                    }
                }
                continue;
            }
            String[] f = t.split("\\s+");
            if (f.length < COLUMNS) {
                throw new IOException(file + ": a data line needs " + COLUMNS + " columns: '" + line + "'");
            }
            double[] row = new double[COLUMNS];
            for (int i = 0; i < COLUMNS; i++) {
                try {
                    row[i] = Double.parseDouble(f[i]);
                } catch (NumberFormatException e) {
                    throw new IOException(file + ": not a number in column " + (i + 1) + ": '" + line + "'");
                }
            }
            rows.add(row);
        }
        int n = rows.size();
        double[] step = new double[n];
        double[] seconds = new double[n];
        double[] swap = new double[n];
        double[] delivery = new double[n];
        for (int i = 0; i < n; i++) {
            double[] r = rows.get(i);
            step[i] = r[0];
            seconds[i] = r[1];
            swap[i] = (r[2] + r[3]) / MIB;
            delivery[i] = (r[4] + r[5]) / MIB;
        }
        return new BenchData(run, step, seconds, swap, delivery);
    }

    /** The plot of {@code data}. */
    public static LinePlot plot(BenchData data) {
        Map<String, String> r = data.run();
        String title = String.format(Locale.ROOT, "EM-BSP  v=%s k=%s mu=%s B=%s D=%s io=%s threads=%s  %s s",
                r.getOrDefault("vps", "?"), r.getOrDefault("cores", "?"), r.getOrDefault("context_size", "?"),
                r.getOrDefault("block_size", "?"), r.getOrDefault("disks", "?"), r.getOrDefault("io", "?"),
                r.getOrDefault("threads", "?"), r.getOrDefault("seconds", "?"));
        LinePlot.Panel time = new LinePlot.Panel("seconds per superstep",
                List.of(new LinePlot.Series("time", TIME_COLOUR, data.superstep(), data.seconds())));
        LinePlot.Panel io = new LinePlot.Panel("MiB per superstep", List.of(
                new LinePlot.Series("swap", SWAP_COLOUR, data.superstep(), data.swapMiB()),
                new LinePlot.Series("delivery", DELIVERY_COLOUR, data.superstep(), data.deliveryMiB())));
        return new LinePlot(title, "virtual superstep", List.of(time, io), WIDTH, HEIGHT);
    }

    /** The PNG next to a data file: its name with the extension replaced by {@code .png}. */
    public static Path pngFor(Path dataFile) {
        String name = dataFile.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dataFile.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".png");
    }

    /** Reads {@code dataFile}, writes its plot as PNG next to it, and returns the PNG's path. */
    public static Path writePng(Path dataFile) throws IOException {
        Path png = pngFor(dataFile);
        Files.write(png, plot(read(dataFile)).render().encode());
        return png;
    }
}
