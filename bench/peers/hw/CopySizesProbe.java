import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * One thread's copy bandwidth between two native segments, at the sizes of the transport's
 * messages (32 KiB to 16 MiB), by three routines: one {@code MemorySegment.copy} of the whole
 * size (what the transport's device reads and writes do), the same in 64 KiB pieces, and the C
 * library's {@code memcpy} called through FFM. The buffers are reused (cache-warm, as a transport's
 * fragments are when it reuses them); one byte of the source changes before every copy.
 *
 *   java --enable-native-access=ALL-UNNAMED bench/peers/hw/CopySizesProbe.java     (pin it: taskset -c 0)
 *
 * Output, one line per routine and size, after two untimed passes:
 *   COPY routine=whole|pieces64k|memcpy size=B reps=N med_GBps=X best_GBps=X
 */
public class CopySizesProbe {
    private static final long[] SIZES = {32L << 10, 256L << 10, 1L << 20, 4L << 20, 16L << 20};
    private static final long PIECE = 64L << 10;
    private static final String[] ROUTINES = {"whole", "pieces64k", "memcpy"};
    private static final MethodHandle MEMCPY = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("memcpy").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));

    public static void main(String[] args) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            long largest = SIZES[SIZES.length - 1];
            MemorySegment source = arena.allocate(largest, 4096);
            MemorySegment target = arena.allocate(largest, 4096);
            source.fill((byte) 1);
            target.fill((byte) 2);
            for (int routine = 0; routine < ROUTINES.length; routine++) {
                for (int pass = 0; pass < 3; pass++) {
                    for (long size : SIZES) {
                        measure(routine, source, target, size, pass == 2);
                    }
                }
            }
        }
    }

    private static void measure(int routine, MemorySegment source, MemorySegment target, long size, boolean report) throws Throwable {
        int reps = (int) Math.max(20, Math.min(2000, (256L << 20) / size));
        double[] nanos = new double[reps];
        for (int r = 0; r < reps; r++) {
            source.set(ValueLayout.JAVA_BYTE, r * 4099L % size, (byte) r);
            long start = System.nanoTime();
            copy(routine, source, target, size);
            nanos[r] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        if (report) {
            System.out.printf("COPY routine=%s size=%d reps=%d med_GBps=%.2f best_GBps=%.2f%n", ROUTINES[routine], size, reps,
                    size / nanos[reps / 2], size / nanos[0]);
        }
    }

    private static void copy(int routine, MemorySegment source, MemorySegment target, long size) throws Throwable {
        switch (routine) {
            case 0 -> MemorySegment.copy(source, 0, target, 0, size);
            case 1 -> {
                for (long at = 0; at < size; at += PIECE) {
                    MemorySegment.copy(source, at, target, at, Math.min(PIECE, size - at));
                }
            }
            default -> {
                MemorySegment ignored = (MemorySegment) MEMCPY.invokeExact(target, source, size);
            }
        }
    }
}
