package org.lockstep.tools.plot;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * An RGB raster that encodes itself as a PNG file (ISO/IEC 15948): truecolour, 8 bits per
 * channel, no interlace, every scanline with filter type 0, all scanlines in one zlib-compressed
 * IDAT chunk. The runtime image has no java.desktop, so this is the whole encoder.
 *
 * <pre>
 *   file   = signature (8 bytes: 89 'P' 'N' 'G' 0D 0A 1A 0A) chunk*
 *   chunk  = length (u32 big-endian, of data) | type (4 ASCII) | data | CRC-32 (of type and data)
 *   IHDR   = width u32 | height u32 | bit depth u8 = 8 | colour type u8 = 2 (RGB)
 *            | compression u8 = 0 | filter u8 = 0 | interlace u8 = 0
 *   IDAT   = zlib stream of height × (filter byte 0 | width × R G B)
 *   IEND   = no data
 * </pre>
 */
public final class PngImage {
    /** The eight bytes every PNG file starts with. */
    public static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    static final int IHDR_LENGTH = 13;
    static final byte BIT_DEPTH = 8;
    static final byte COLOUR_TYPE_RGB = 2;
    static final int CHANNELS = 3;
    static final byte FILTER_NONE = 0;

    private final int width;
    private final int height;
    private final int[] rgb;

    /** A {@code width} × {@code height} image filled with {@code background} (0xRRGGBB). */
    public PngImage(int width, int height, int background) {
        if (width < 1 || height < 1) {
            throw new IllegalArgumentException("image of " + width + " x " + height + " pixels");
        }
        this.width = width;
        this.height = height;
        this.rgb = new int[Math.multiplyExact(width, height)];
        java.util.Arrays.fill(rgb, background & 0xFFFFFF);
    }

    public int width() {
        return width;
    }

    public int height() {
        return height;
    }

    /** Sets a pixel; points outside the image are ignored, so shapes may be clipped. */
    public void set(int x, int y, int colour) {
        if (x >= 0 && x < width && y >= 0 && y < height) {
            rgb[y * width + x] = colour & 0xFFFFFF;
        }
    }

    /** The colour at (x, y), 0xRRGGBB. */
    public int get(int x, int y) {
        return rgb[y * width + x];
    }

    /** The PNG file of this image. */
    public byte[] encode() {
        try {
            ByteArrayOutputStream file = new ByteArrayOutputStream();
            file.write(SIGNATURE);
            ByteArrayOutputStream header = new ByteArrayOutputStream(IHDR_LENGTH);
            DataOutputStream h = new DataOutputStream(header);
            h.writeInt(width);
            h.writeInt(height);
            h.writeByte(BIT_DEPTH);
            h.writeByte(COLOUR_TYPE_RGB);
            h.writeByte(0); // compression: deflate
            h.writeByte(0); // filter method: adaptive (we use type 0 everywhere)
            h.writeByte(0); // no interlace
            chunk(file, "IHDR", header.toByteArray());
            chunk(file, "IDAT", compressedScanlines());
            chunk(file, "IEND", new byte[0]);
            return file.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
    }

    private byte[] compressedScanlines() {
        byte[] raw = new byte[height * (1 + width * CHANNELS)];
        int at = 0;
        for (int y = 0; y < height; y++) {
            raw[at++] = FILTER_NONE;
            for (int x = 0; x < width; x++) {
                int c = rgb[y * width + x];
                raw[at++] = (byte) (c >>> 16);
                raw[at++] = (byte) (c >>> 8);
                raw[at++] = (byte) c;
            }
        }
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
        try {
            deflater.setInput(raw);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 8 + 64);
            byte[] buffer = new byte[1 << 16];
            while (!deflater.finished()) {
                int n = deflater.deflate(buffer);
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    private static void chunk(ByteArrayOutputStream file, String type, byte[] data) throws IOException {
        DataOutputStream out = new DataOutputStream(file);
        byte[] typeBytes = type.getBytes(StandardCharsets.US_ASCII);
        out.writeInt(data.length);
        out.write(typeBytes);
        out.write(data);
        CRC32 crc = new CRC32();
        crc.update(typeBytes);
        crc.update(data);
        out.writeInt((int) crc.getValue());
        out.flush();
    }
}
