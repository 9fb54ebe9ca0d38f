package org.lockstep.embsp.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class DiskLayoutTest {
    private static final long B = 4096;

    @Test
    void diskSpaceIsExactlyVTimesMu() {
        for (boolean striped : new boolean[] {false, true}) {
            for (int v : new int[] {1, 5, 7, 16}) {
                for (int d : new int[] {1, 2, 3}) {
                    DiskLayout layout = new DiskLayout(v, d, 3 * B, B, striped);
                    long total = 0;
                    for (int i = 0; i < d; i++) {
                        total += layout.diskBytes(i);
                    }
                    assertEquals(v * 3 * B, total, "v=" + v + " D=" + d + " striped=" + striped);
                }
            }
        }
    }

    @Test
    void contiguousContextsGoRoundRobinOverDisks() {
        DiskLayout layout = new DiskLayout(7, 3, 2 * B, B, false);
        assertFalse(layout.striped());
        assertEquals(1, layout.diskOf(4));
        assertEquals(2 * B, layout.contextStart(4), "VP 4 is the second context on disk 1");
        List<long[]> extents = extents(layout, 4, 100, 5000);
        assertEquals(1, extents.size());
        assertEquals(1, extents.getFirst()[0]);
        assertEquals(2 * B + 100, extents.getFirst()[1]);
    }

    @Test
    void stripedBlocksAreDealtRoundRobin() {
        DiskLayout layout = new DiskLayout(4, 3, 4 * B, B, true);
        assertTrue(layout.striped());
        // VP 1, block 0 is logical block 4: disk 1, file block 1
        List<long[]> extents = extents(layout, 1, 0, 4 * B);
        assertEquals(4, extents.size());
        long[][] expected = {{1, B}, {2, B}, {0, 2 * B}, {1, 2 * B}};
        for (int i = 0; i < 4; i++) {
            assertEquals(expected[i][0], extents.get(i)[0], "disk of piece " + i);
            assertEquals(expected[i][1], extents.get(i)[1], "position of piece " + i);
            assertEquals(i * B, extents.get(i)[2]);
            assertEquals(B, extents.get(i)[3]);
        }
    }

    @Test
    void everyContextByteHasItsOwnDiskByte() {
        for (boolean striped : new boolean[] {false, true}) {
            int v = 5;
            int d = 3;
            DiskLayout layout = new DiskLayout(v, d, 3 * B, B, striped);
            Set<String> seen = new HashSet<>();
            for (int vp = 0; vp < v; vp++) {
                for (long[] e : extents(layout, vp, 0, 3 * B)) {
                    assertTrue(e[1] + e[3] <= layout.diskBytes((int) e[0]), "inside the disk file");
                    for (long blockStart = e[1]; blockStart < e[1] + e[3]; blockStart += B) {
                        assertTrue(seen.add(e[0] + ":" + blockStart), "disk block used twice: " + e[0] + ":" + blockStart);
                    }
                }
            }
            assertEquals(v * 3, seen.size());
        }
    }

    @Test
    void rangesOutsideTheContextAreRefused() {
        DiskLayout layout = new DiskLayout(2, 1, 2 * B, B, false);
        assertThrows(IndexOutOfBoundsException.class, () -> extents(layout, 0, B, 2 * B));
        assertThrows(IllegalArgumentException.class, () -> new DiskLayout(2, 1, B + 1, B, false));
    }

    private static List<long[]> extents(DiskLayout layout, int vp, long offset, long length) {
        List<long[]> out = new ArrayList<>();
        layout.forEachExtent(vp, offset, length, (disk, position, rangeOffset, n) -> out.add(new long[] {disk, position, rangeOffset, n}));
        return out;
    }
}
