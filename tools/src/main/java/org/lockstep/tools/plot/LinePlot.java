package org.lockstep.tools.plot;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line plot of one or more panels stacked vertically that share the x axis: each panel has its
 * own y axis (from zero), tick labels, and a legend; every series is drawn as a two-pixel line
 * through its points with a small square at each point. Rendered into a {@link PngImage}.
 */
public final class LinePlot {
    /** One line: its legend label, colour (0xRRGGBB) and points. */
    public record Series(String label, int colour, double[] x, double[] y) {
        public Series {
            if (x.length != y.length) {
                throw new IllegalArgumentException(label + ": " + x.length + " x values for " + y.length + " y values");
            }
        }
    }

    /** One panel: the label of its y axis and its lines. */
    public record Panel(String yLabel, List<Series> series) {
        public Panel {
            series = List.copyOf(series);
        }
    }

    static final int BACKGROUND = 0xFFFFFF;
    static final int INK = 0x000000;
    static final int GRID = 0xE0E0E0;
    static final int LEFT = 90;
    static final int RIGHT = 20;
    static final int TOP = 36;
    static final int BOTTOM = 44;
    static final int GAP = 34;
    static final int TICKS = 5;
    static final int TICK_LENGTH = 5;
    static final int MARKER = 2;
    static final int TEXT_SCALE = 1;
    static final int TITLE_SCALE = 2;

    private final String title;
    private final String xLabel;
    private final List<Panel> panels;
    private final int width;
    private final int height;
    private final double xMin;
    private final double xMax;
    private final double[] yMax;

    public LinePlot(String title, String xLabel, List<Panel> panels, int width, int height) {
        if (panels.isEmpty()) {
            throw new IllegalArgumentException("a plot needs a panel");
        }
        this.title = title;
        this.xLabel = xLabel;
        this.panels = List.copyOf(panels);
        this.width = width;
        this.height = height;
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        yMax = new double[panels.size()];
        for (int p = 0; p < panels.size(); p++) {
            double top = 0;
            for (Series s : panels.get(p).series()) {
                for (int i = 0; i < s.x().length; i++) {
                    lo = Math.min(lo, s.x()[i]);
                    hi = Math.max(hi, s.x()[i]);
                    top = Math.max(top, s.y()[i]);
                }
            }
            yMax[p] = niceCeiling(top);
        }
        if (!(lo <= hi)) {
            lo = 0;
            hi = 1;
        }
        if (lo == hi) {
            lo -= 0.5;
            hi += 0.5;
        }
        xMin = lo;
        xMax = hi;
    }

    /** The plot as an image. */
    public PngImage render() {
        PngImage image = new PngImage(width, height, BACKGROUND);
        TinyFont.draw(image, title, (width - TinyFont.width(title, TITLE_SCALE)) / 2, (TOP - TinyFont.GLYPH_HEIGHT * TITLE_SCALE) / 2,
                TITLE_SCALE, INK);
        for (int p = 0; p < panels.size(); p++) {
            drawPanel(image, p);
        }
        int labelY = height - TinyFont.GLYPH_HEIGHT - 6;
        TinyFont.draw(image, xLabel, LEFT + (plotWidth() - TinyFont.width(xLabel, TEXT_SCALE)) / 2, labelY, TEXT_SCALE, INK);
        return image;
    }

    /** The pixel of data point (x, y) in panel {@code panel}: {x, y}. */
    public int[] pixel(int panel, double x, double y) {
        int left = LEFT;
        int top = panelTop(panel);
        int w = plotWidth();
        int h = panelHeight();
        int px = left + (int) Math.round((x - xMin) / (xMax - xMin) * (w - 1));
        int py = top + h - 1 - (int) Math.round(y / yMax[panel] * (h - 1));
        return new int[] {px, py};
    }

    private int plotWidth() {
        return width - LEFT - RIGHT;
    }

    private int panelHeight() {
        return (height - TOP - BOTTOM - GAP * (panels.size() - 1)) / panels.size();
    }

    private int panelTop(int panel) {
        return TOP + panel * (panelHeight() + GAP);
    }

    private void drawPanel(PngImage image, int p) {
        Panel panel = panels.get(p);
        int top = panelTop(p);
        int h = panelHeight();
        int w = plotWidth();
        int bottom = top + h - 1;
        int right = LEFT + w - 1;
        // grid and y ticks
        for (int t = 0; t <= TICKS; t++) {
            double value = yMax[p] * t / TICKS;
            int y = pixel(p, xMin, value)[1];
            if (t > 0 && t < TICKS) {
                horizontal(image, LEFT + 1, right - 1, y, GRID);
            }
            horizontal(image, LEFT - TICK_LENGTH, LEFT, y, INK);
            String label = format(value, yMax[p] / TICKS);
            TinyFont.draw(image, label, LEFT - TICK_LENGTH - 3 - TinyFont.width(label, TEXT_SCALE), y - TinyFont.GLYPH_HEIGHT / 2,
                    TEXT_SCALE, INK);
        }
        // x ticks
        double step = niceStep((xMax - xMin) / TICKS);
        for (double x = Math.ceil(xMin / step) * step; x <= xMax + step * 1e-9; x += step) {
            int px = pixel(p, x, 0)[0];
            vertical(image, px, bottom, bottom + TICK_LENGTH, INK);
            String label = format(x, step);
            TinyFont.draw(image, label, px - TinyFont.width(label, TEXT_SCALE) / 2, bottom + TICK_LENGTH + 3, TEXT_SCALE, INK);
        }
        // frame
        horizontal(image, LEFT, right, top, INK);
        horizontal(image, LEFT, right, bottom, INK);
        vertical(image, LEFT, top, bottom, INK);
        vertical(image, right, top, bottom, INK);
        // y label, reading upwards, centred on the panel
        TinyFont.drawUpwards(image, panel.yLabel(), 8, top + (h + TinyFont.width(panel.yLabel(), TEXT_SCALE)) / 2, TEXT_SCALE, INK);
        // lines
        for (Series s : panel.series()) {
            for (int i = 0; i < s.x().length; i++) {
                int[] a = pixel(p, s.x()[i], s.y()[i]);
                if (i > 0) {
                    int[] b = pixel(p, s.x()[i - 1], s.y()[i - 1]);
                    line(image, b[0], b[1], a[0], a[1], s.colour());
                }
                for (int dy = -MARKER; dy <= MARKER; dy++) {
                    for (int dx = -MARKER; dx <= MARKER; dx++) {
                        image.set(a[0] + dx, a[1] + dy, s.colour());
                    }
                }
            }
        }
        // legend, top right inside the panel
        int y = top + 6;
        for (Series s : panel.series()) {
            int textWidth = TinyFont.width(s.label(), TEXT_SCALE);
            int x = right - 8 - textWidth;
            horizontal(image, x - 24, x - 6, y + TinyFont.GLYPH_HEIGHT / 2, s.colour());
            horizontal(image, x - 24, x - 6, y + TinyFont.GLYPH_HEIGHT / 2 + 1, s.colour());
            TinyFont.draw(image, s.label(), x, y, TEXT_SCALE, INK);
            y += TinyFont.GLYPH_HEIGHT + 5;
        }
    }

    private static void horizontal(PngImage image, int x0, int x1, int y, int colour) {
        for (int x = x0; x <= x1; x++) {
            image.set(x, y, colour);
        }
    }

    private static void vertical(PngImage image, int x, int y0, int y1, int colour) {
        for (int y = y0; y <= y1; y++) {
            image.set(x, y, colour);
        }
    }

    /** Bresenham's line, two pixels thick. */
    private static void line(PngImage image, int x0, int y0, int x1, int y1, int colour) {
        int dx = Math.abs(x1 - x0);
        int dy = -Math.abs(y1 - y0);
        int sx = x0 < x1 ? 1 : -1;
        int sy = y0 < y1 ? 1 : -1;
        int error = dx + dy;
        int x = x0;
        int y = y0;
        while (true) {
            image.set(x, y, colour);
            image.set(x + 1, y, colour);
            image.set(x, y + 1, colour);
            if (x == x1 && y == y1) {
                return;
            }
            int e2 = 2 * error;
            if (e2 >= dy) {
                error += dy;
                x += sx;
            }
            if (e2 <= dx) {
                error += dx;
                y += sy;
            }
        }
    }

    /** The smallest 1, 2 or 5 times a power of ten that is at least {@code value / TICKS}, times TICKS; 1 for nothing. */
    static double niceCeiling(double value) {
        if (!(value > 0)) {
            return 1;
        }
        return niceStep(value / TICKS) * TICKS;
    }

    static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * power >= raw * (1 - 1e-9)) {
                return m * power;
            }
        }
        return 10 * power;
    }

    /** {@code value} with as many decimals as {@code step} needs. */
    static String format(double value, double step) {
        int decimals = step >= 1 ? 0 : (int) Math.min(6, Math.ceil(-Math.log10(step) - 1e-9));
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** The series of a panel, for callers that assemble plots from columns. */
    public static List<Series> series(Series... series) {
        return new ArrayList<>(List.of(series));
    }
}
