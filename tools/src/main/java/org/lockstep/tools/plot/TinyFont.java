package org.lockstep.tools.plot;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A 5 × 7 pixel font for plot labels: digits, capital letters (lower case is drawn as capitals)
 * and the punctuation that numbers and labels need. Each glyph is seven rows of five columns,
 * {@code #} for ink; a character without a glyph is drawn as a hollow box, so a missing glyph is
 * visible rather than silently dropped.
 */
final class TinyFont {
    static final int GLYPH_WIDTH = 5;
    static final int GLYPH_HEIGHT = 7;
    /** Horizontal distance from one character to the next, at scale 1. */
    static final int ADVANCE = GLYPH_WIDTH + 1;

    private static final Map<Character, boolean[][]> GLYPHS = new HashMap<>();

    static {
        glyph('0', ".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###.");
        glyph('1', "..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###.");
        glyph('2', ".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####");
        glyph('3', "####.", "....#", "....#", ".###.", "....#", "....#", "####.");
        glyph('4', "...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#.");
        glyph('5', "#####", "#....", "####.", "....#", "....#", "#...#", ".###.");
        glyph('6', "..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###.");
        glyph('7', "#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#...");
        glyph('8', ".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###.");
        glyph('9', ".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##..");
        glyph('A', ".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#");
        glyph('B', "####.", "#...#", "#...#", "####.", "#...#", "#...#", "####.");
        glyph('C', ".###.", "#...#", "#....", "#....", "#....", "#...#", ".###.");
        glyph('D', "###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###..");
        glyph('E', "#####", "#....", "#....", "####.", "#....", "#....", "#####");
        glyph('F', "#####", "#....", "#....", "####.", "#....", "#....", "#....");
        glyph('G', ".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####");
        glyph('H', "#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#");
        glyph('I', ".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###.");
        glyph('J', "..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..");
        glyph('K', "#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#");
        glyph('L', "#....", "#....", "#....", "#....", "#....", "#....", "#####");
        glyph('M', "#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#");
        glyph('N', "#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#");
        glyph('O', ".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.");
        glyph('P', "####.", "#...#", "#...#", "####.", "#....", "#....", "#....");
        glyph('Q', ".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#");
        glyph('R', "####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#");
        glyph('S', ".####", "#....", "#....", ".###.", "....#", "....#", "####.");
        glyph('T', "#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..");
        glyph('U', "#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###.");
        glyph('V', "#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#..");
        glyph('W', "#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#.");
        glyph('X', "#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#");
        glyph('Y', "#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#..");
        glyph('Z', "#####", "....#", "...#.", "..#..", ".#...", "#....", "#####");
        glyph(' ', ".....", ".....", ".....", ".....", ".....", ".....", ".....");
        glyph('.', ".....", ".....", ".....", ".....", ".....", ".##..", ".##..");
        glyph(',', ".....", ".....", ".....", ".....", ".##..", "..#..", ".#...");
        glyph(':', ".....", ".##..", ".##..", ".....", ".##..", ".##..", ".....");
        glyph('-', ".....", ".....", ".....", "#####", ".....", ".....", ".....");
        glyph('+', ".....", "..#..", "..#..", "#####", "..#..", "..#..", ".....");
        glyph('=', ".....", ".....", "#####", ".....", "#####", ".....", ".....");
        glyph('/', "....#", "....#", "...#.", "..#..", ".#...", "#....", "#....");
        glyph('(', "...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#.");
        glyph(')', ".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#...");
        glyph('[', ".###.", ".#...", ".#...", ".#...", ".#...", ".#...", ".###.");
        glyph(']', ".###.", "...#.", "...#.", "...#.", "...#.", "...#.", ".###.");
        glyph('_', ".....", ".....", ".....", ".....", ".....", ".....", "#####");
        glyph('%', "##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##");
        glyph('\'', "..#..", "..#..", ".#...", ".....", ".....", ".....", ".....");
        glyph('*', ".....", "#.#.#", ".###.", "#####", ".###.", "#.#.#", ".....");
    }

    private TinyFont() {
    }

    private static void glyph(char c, String... rows) {
        boolean[][] ink = new boolean[GLYPH_HEIGHT][GLYPH_WIDTH];
        for (int y = 0; y < GLYPH_HEIGHT; y++) {
            for (int x = 0; x < GLYPH_WIDTH; x++) {
                ink[y][x] = rows[y].charAt(x) == '#';
            }
        }
        GLYPHS.put(c, ink);
    }

    /** Width in pixels of {@code text} at {@code scale}. */
    static int width(String text, int scale) {
        return text.isEmpty() ? 0 : (text.length() * ADVANCE - 1) * scale;
    }

    /** Draws {@code text} with its top-left corner at (x, y). */
    static void draw(PngImage image, String text, int x, int y, int scale, int colour) {
        String upper = text.toUpperCase(Locale.ROOT);
        for (int i = 0; i < upper.length(); i++) {
            boolean[][] ink = GLYPHS.get(upper.charAt(i));
            int left = x + i * ADVANCE * scale;
            for (int gy = 0; gy < GLYPH_HEIGHT; gy++) {
                for (int gx = 0; gx < GLYPH_WIDTH; gx++) {
                    boolean on = ink != null ? ink[gy][gx] : gy == 0 || gy == GLYPH_HEIGHT - 1 || gx == 0 || gx == GLYPH_WIDTH - 1;
                    if (on) {
                        for (int sy = 0; sy < scale; sy++) {
                            for (int sx = 0; sx < scale; sx++) {
                                image.set(left + gx * scale + sx, y + gy * scale + sy, colour);
                            }
                        }
                    }
                }
            }
        }
    }

    /** Draws {@code text} rotated a quarter turn anticlockwise (reading upwards), its baseline-left corner at (x, y). */
    static void drawUpwards(PngImage image, String text, int x, int y, int scale, int colour) {
        String upper = text.toUpperCase(Locale.ROOT);
        for (int i = 0; i < upper.length(); i++) {
            boolean[][] ink = GLYPHS.get(upper.charAt(i));
            int bottom = y - i * ADVANCE * scale;
            for (int gy = 0; gy < GLYPH_HEIGHT; gy++) {
                for (int gx = 0; gx < GLYPH_WIDTH; gx++) {
                    boolean on = ink != null ? ink[gy][gx] : gy == 0 || gy == GLYPH_HEIGHT - 1 || gx == 0 || gx == GLYPH_WIDTH - 1;
                    if (on) {
                        for (int sy = 0; sy < scale; sy++) {
                            for (int sx = 0; sx < scale; sx++) {
                                // glyph column gx goes up, glyph row gy goes right
                                image.set(x + gy * scale + sy, bottom - gx * scale - sx, colour);
                            }
                        }
                    }
                }
            }
        }
    }
}
