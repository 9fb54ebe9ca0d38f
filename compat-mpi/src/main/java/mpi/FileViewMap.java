package mpi;

import java.util.Arrays;

/**
 * Where a file view's data lies in the file (MPI 4.1 §14.3): from byte {@code disp} on, the file
 * is tiled with copies of the filetype, one extent apart, and only the filetype's data bytes are
 * visible. Reads and writes address the visible bytes as one stream (offsets count etypes of it);
 * this class maps a range of that stream to the runs of file bytes it covers.
 *
 * <pre>
 *   disp = 4, filetype = 2 ints at byte 0 and 1 int at byte 12, extent 16 (ints: 4 bytes)
 *   file:   ....[AAAABBBB....CCCC][DDDDEEEE....FFFF] ...
 *   stream:     AAAABBBBCCCC      DDDDEEEEFFFF           (12 visible bytes per tile)
 * </pre>
 */
final class FileViewMap {
    /** Bytes of file before the first tile. */
    final long disp;
    /** Bytes of one etype: stream offsets are counted in these. */
    final long etypeBytes;
    /** Visible bytes per tile (the filetype's size). */
    private final long tileBytes;
    /** Bytes from one tile to the next (the filetype's extent). */
    private final long tileExtent;
    /** The filetype's data pieces, ascending: file offset within a tile, length, and stream offset within a tile. */
    private final long[] pieceOffsets;
    private final long[] pieceLengths;
    private final long[] pieceStarts;

    private FileViewMap(long disp, long etypeBytes, long tileExtent, long[] offsets, long[] lengths, int pieces) {
        this.disp = disp;
        this.etypeBytes = etypeBytes;
        this.tileExtent = tileExtent;
        this.pieceOffsets = Arrays.copyOf(offsets, pieces);
        this.pieceLengths = Arrays.copyOf(lengths, pieces);
        this.pieceStarts = new long[pieces];
        long stream = 0;
        for (int i = 0; i < pieces; i++) {
            pieceStarts[i] = stream;
            stream += pieceLengths[i];
        }
        this.tileBytes = stream;
    }

    /** The view a file has when opened: bytes, from byte 0. */
    static FileViewMap bytes() {
        return new FileViewMap(0, 1, 1, new long[] {0}, new long[] {1}, 1);
    }

    /**
     * The view of {@code disp}, {@code etype} and {@code filetype}, with the checks MPI 4.1 §14.3
     * asks for: committed types, data in the filetype, a whole number of etypes per tile, and
     * filetype displacements that are non-negative and non-decreasing.
     */
    static FileViewMap of(String call, long disp, Datatype etype, Datatype filetype) throws MPIException {
        if (disp < 0) {
            throw ErrorClasses.argument(ErrorClasses.DISP, call, "negative displacement " + disp);
        }
        etype.wireCount(call, 1);
        filetype.wireCount(call, 1);
        long etypeBytes = etype.byteSize();
        long tileBytes = filetype.byteSize();
        if (etypeBytes == 0 || tileBytes == 0) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, (etypeBytes == 0 ? "the etype " + etype : "the filetype " + filetype)
                    + " holds no data");
        }
        if (tileBytes % etypeBytes != 0) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "the filetype " + filetype + " (" + tileBytes
                    + " bytes) is not a whole number of etypes " + etype + " (" + etypeBytes + " bytes)");
        }
        long extent = filetype.byteExtent();
        if (extent <= 0) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "the filetype " + filetype + " has extent " + extent
                    + "; tiles of a file view need a positive one");
        }
        Pieces pieces = new Pieces();
        try {
            filetype.unit().forEachPiece(1, pieces::add);
        } catch (org.lockstep.api.LockstepException e) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "the filetype " + filetype + " places data before its start ("
                    + e.getMessage() + "); a filetype's displacements must be non-negative");
        }
        if (pieces.decreasing) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "the filetype " + filetype
                    + " has decreasing displacements; a filetype's must be non-decreasing (MPI 4.1 §14.3)");
        }
        return new FileViewMap(disp, etypeBytes, extent, pieces.offsets, pieces.lengths, pieces.count);
    }

    /** The filetype's pieces in type-map order, adjacent ones merged. */
    private static final class Pieces {
        long[] offsets = new long[4];
        long[] lengths = new long[4];
        int count;
        boolean decreasing;

        void add(long offset, long length) {
            if (length == 0) {
                return;
            }
            if (count > 0) {
                long end = offsets[count - 1] + lengths[count - 1];
                if (offset < end) {
                    decreasing = true;
                }
                if (offset == end) {
                    lengths[count - 1] += length;
                    return;
                }
            }
            if (count == offsets.length) {
                offsets = Arrays.copyOf(offsets, 2 * count);
                lengths = Arrays.copyOf(lengths, 2 * count);
            }
            offsets[count] = offset;
            lengths[count++] = length;
        }
    }

    /** Receives the file runs of a stream range ({@link #forEachRun}). */
    @FunctionalInterface
    interface RunVisitor {
        /**
         * {@code length} bytes of file at {@code fileOffset}, which are the range's bytes from
         * {@code rangeOffset} on; returns false to stop (a read that met the end of the file).
         */
        boolean run(long fileOffset, long rangeOffset, long length) throws java.io.IOException;
    }

    /** Hands {@code visitor} the file runs of stream bytes {@code [streamStart, streamStart + length)}, in order. */
    void forEachRun(long streamStart, long length, RunVisitor visitor) throws java.io.IOException {
        long tile = streamStart / tileBytes;
        long within = streamStart % tileBytes;
        int piece = pieceAt(within);
        long done = 0;
        while (done < length) {
            long intoPiece = within - pieceStarts[piece];
            long n = Math.min(pieceLengths[piece] - intoPiece, length - done);
            long fileOffset = disp + tile * tileExtent + pieceOffsets[piece] + intoPiece;
            if (!visitor.run(fileOffset, done, n)) {
                return;
            }
            done += n;
            within += n;
            if (++piece == pieceOffsets.length) {
                piece = 0;
                tile++;
                within = 0;
            } else {
                within = pieceStarts[piece];
            }
        }
    }

    /** The file byte of stream byte {@code streamByte} ({@code MPI_File_get_byte_offset}). */
    long fileByte(long streamByte) {
        long within = streamByte % tileBytes;
        int piece = pieceAt(within);
        return disp + streamByte / tileBytes * tileExtent + pieceOffsets[piece] + within - pieceStarts[piece];
    }

    /** Visible bytes of a file of {@code fileSize} bytes: the stream's length (where {@code SEEK_END} is). */
    long streamLength(long fileSize) {
        if (fileSize <= disp) {
            return 0;
        }
        long past = fileSize - disp;
        long tiles = past / tileExtent;
        long rest = past % tileExtent;
        long visible = tiles * tileBytes;
        for (int i = 0; i < pieceOffsets.length && pieceOffsets[i] < rest; i++) {
            visible += Math.min(pieceLengths[i], rest - pieceOffsets[i]);
        }
        return visible;
    }

    /** The piece that holds stream byte {@code within} of a tile. */
    private int pieceAt(long within) {
        int i = Arrays.binarySearch(pieceStarts, within);
        return i >= 0 ? i : -i - 2;
    }
}
