package org.lockstep.applications;

import java.util.List;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Sizes;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * The applications by command-line name, each made from its arguments:
 * <pre>
 *   sort         --keys N   [--seed S]     CGM sample sort of N 64-bit keys
 *   prefix-sums  --values N                prefix sums of N 64-bit values
 *   list-ranking --nodes N                 list ranking of an N-node list
 * </pre>
 * {@code --size N} names the size of any of them; sizes take binary suffixes ({@code 64m}).
 */
public final class Applications {
    public static final String SORT = "sort";
    public static final String PREFIX_SUMS = "prefix-sums";
    public static final String LIST_RANKING = "list-ranking";
    private static final List<String> NAMES = List.of(SORT, PREFIX_SUMS, LIST_RANKING);
    /** Sizes when none is given: small enough for a laptop's threads. */
    static final long DEFAULT_SIZE = 1L << 20;

    private Applications() {
    }

    /** The names {@link #create} knows. */
    public static List<String> names() {
        return NAMES;
    }

    /** Whether {@code name} is an application's name. */
    public static boolean isApplication(String name) {
        return NAMES.contains(name);
    }

    /** One line per application: its name and arguments. */
    public static String usage() {
        return String.join(System.lineSeparator(),
                "  sort         --keys N [--seed S]   CGM sample sort of N 64-bit keys",
                "  prefix-sums  --values N            prefix sums of N 64-bit values",
                "  list-ranking --nodes N             list ranking of an N-node linked list",
                "  (--size N names the size of any; sizes take suffixes k, m, g)");
    }

    /**
     * The application {@code name} with {@code arguments}.
     *
     * @throws LockstepException {@link ErrorClass#ARG} for an unknown name or argument, naming it
     */
    public static Application create(String name, List<String> arguments) {
        if (!isApplication(name)) {
            throw new LockstepException(ErrorClass.ARG, "no application '" + name + "'; there are " + NAMES);
        }
        Sized options = switch (name) {
            case SORT -> new SortOptions();
            case PREFIX_SUMS -> new PrefixSumsOptions();
            default -> new ListRankingOptions();
        };
        try {
            new CommandLine(options).parseArgs(arguments.toArray(String[]::new));
        } catch (ParameterException e) {
            throw new LockstepException(ErrorClass.ARG, name + ": " + e.getMessage());
        }
        long size = options.size();
        if (size < 1) {
            throw new LockstepException(ErrorClass.ARG, name + ": the size must be at least 1, got " + size);
        }
        long seed = options instanceof SortOptions sort ? sort.seed : Keys.DEFAULT_SEED;
        return switch (name) {
            case SORT -> new SampleSort(size, seed);
            case PREFIX_SUMS -> new PrefixSums(size);
            default -> new ListRanking(size);
        };
    }

    /** An application's options, parsed by picocli; each names its size its own way, and {@code --size} always. */
    private interface Sized {
        long size();
    }

    @Command(name = SORT)
    private static final class SortOptions implements Sized {
        @Option(names = {"--keys", "--size"}, converter = Size.class)
        long keys = DEFAULT_SIZE;
        @Option(names = "--seed")
        long seed = Keys.DEFAULT_SEED;

        @Override
        public long size() {
            return keys;
        }
    }

    @Command(name = PREFIX_SUMS)
    private static final class PrefixSumsOptions implements Sized {
        @Option(names = {"--values", "--size"}, converter = Size.class)
        long values = DEFAULT_SIZE;

        @Override
        public long size() {
            return values;
        }
    }

    @Command(name = LIST_RANKING)
    private static final class ListRankingOptions implements Sized {
        @Option(names = {"--nodes", "--size"}, converter = Size.class)
        long nodes = DEFAULT_SIZE;

        @Override
        public long size() {
            return nodes;
        }
    }

    /** A count with an optional binary suffix ({@code 64m}). */
    private static final class Size implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return Sizes.parse("size", value);
            } catch (RuntimeException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
