package org.lockstep.applications;

import java.util.List;
import java.util.Locale;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Sizes;

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
        String sizeOption = switch (name) {
            case SORT -> "--keys";
            case PREFIX_SUMS -> "--values";
            default -> "--nodes";
        };
        long size = DEFAULT_SIZE;
        long seed = Keys.DEFAULT_SEED;
        for (int i = 0; i < arguments.size(); i++) {
            String argument = arguments.get(i);
            String option = argument.contains("=") ? argument.substring(0, argument.indexOf('=')) : argument;
            String value;
            if (argument.contains("=")) {
                value = argument.substring(argument.indexOf('=') + 1);
            } else if (i + 1 < arguments.size()) {
                value = arguments.get(++i);
            } else {
                throw new LockstepException(ErrorClass.ARG, name + ": " + option + " needs a value");
            }
            if (option.equals(sizeOption) || option.equals("--size")) {
                size = Sizes.parse(name + " " + option, value);
                if (size < 1) {
                    throw new LockstepException(ErrorClass.ARG, name + ": " + option + " must be at least 1, got " + value);
                }
            } else if (option.equals("--seed") && name.equals(SORT)) {
                try {
                    seed = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new LockstepException(ErrorClass.ARG, name + ": --seed is not a number: '" + value + "'");
                }
            } else {
                throw new LockstepException(ErrorClass.ARG, String.format(Locale.ROOT, "%s: unknown argument '%s' (%s N%s)", name,
                        argument, sizeOption, name.equals(SORT) ? " [--seed S]" : ""));
            }
        }
        return switch (name) {
            case SORT -> new SampleSort(size, seed);
            case PREFIX_SUMS -> new PrefixSums(size);
            default -> new ListRanking(size);
        };
    }
}
