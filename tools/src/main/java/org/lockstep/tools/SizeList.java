package org.lockstep.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.lockstep.api.LockstepException;
import org.lockstep.api.Sizes;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Message sizes given on the command line: a comma-separated list whose items are single sizes
 * ({@code 4096}, {@code 64k}) or doubling ranges ({@code 8..4m} is 8, 16, 32, …, 4 MiB). The result
 * is sorted and free of duplicates.
 */
record SizeList(List<Long> sizes) {
    private static final String RANGE = "..";

    SizeList {
        sizes = List.copyOf(sizes);
    }

    /** Parses {@code text}; throws {@link IllegalArgumentException} naming the bad item. */
    static SizeList parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("no sizes given");
        }
        TreeSet<Long> sizes = new TreeSet<>();
        for (String item : text.split(",", -1)) {
            String trimmed = item.trim();
            if (trimmed.isEmpty()) {
                throw new IllegalArgumentException("empty item in size list '" + text + "'");
            }
            int range = trimmed.indexOf(RANGE);
            if (range < 0) {
                sizes.add(size(trimmed));
            } else {
                addDoublings(sizes, trimmed, size(trimmed.substring(0, range)), size(trimmed.substring(range + RANGE.length())));
            }
        }
        return new SizeList(new ArrayList<>(sizes));
    }

    private static void addDoublings(TreeSet<Long> sizes, String item, long from, long to) {
        if (from < 1) {
            throw new IllegalArgumentException("range '" + item + "' must start at 1 byte or more");
        }
        if (from > to) {
            throw new IllegalArgumentException("range '" + item + "' ends below its start");
        }
        for (long size = from; size <= to; size *= 2) {
            sizes.add(size);
            if (size > Long.MAX_VALUE / 2) {
                break;
            }
        }
    }

    private static long size(String text) {
        long size;
        try {
            size = Sizes.parse("size", text);
        } catch (LockstepException e) {
            throw new IllegalArgumentException("'" + text.trim() + "' is not a size (use e.g. 4096, 64k, 4m)", e);
        }
        if (size < 0) {
            throw new IllegalArgumentException("size '" + text.trim() + "' is negative");
        }
        return size;
    }

    /** The largest size in the list. */
    long max() {
        return sizes.getLast();
    }

    /** picocli converter for options of type {@link SizeList}. */
    static final class Converter implements ITypeConverter<SizeList> {
        @Override
        public SizeList convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** picocli converter for a single byte size such as {@code 1024} or {@code 4k}. */
    static final class SingleSize implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return size(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
