package org.lockstep.api;

import java.util.Locale;

/** Parses sizes such as {@code 4096}, {@code 64k}, {@code 16m}, {@code 2g} (binary multiples). */
public final class Sizes {
    private Sizes() {
    }

    /** The value of {@code text}; {@code what} names it in the error. */
    public static long parse(String what, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long multiplier = 1;
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> multiplier = 1L << 10;
                case 'm' -> multiplier = 1L << 20;
                case 'g' -> multiplier = 1L << 30;
                case 't' -> multiplier = 1L << 40;
                default -> multiplier = 1;
            }
            if (multiplier != 1) {
                t = t.substring(0, t.length() - 1);
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(t.trim()), multiplier);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new LockstepException(ErrorClass.ARG, what + ": not a size: '" + text + "' (use e.g. 4096, 64k, 16m, 2g)");
        }
    }
}
