package org.lockstep.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** Info's values: order of first setting, replacement in place, MPI's key and value limits as typed errors. */
class InfoTest {
    @Test
    void keysKeepTheOrderOfFirstSettingAndAReplacedValueKeepsItsPlace() {
        Info info = Info.EMPTY.with("b", "1").with("a", "2").with("b", "3");
        assertEquals(List.of("b", "a"), info.keys());
        assertEquals(Optional.of("3"), info.get("b"));
        assertEquals(2, info.size());
        assertEquals(Optional.empty(), info.get("c"));
        assertEquals(0, Info.EMPTY.size(), "with gives a new Info; EMPTY stays empty");
        Info fewer = info.without("b");
        assertEquals(List.of("a"), fewer.keys());
        assertEquals(2, info.size(), "without gives a new Info");
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("a", "2");
        assertEquals(fewer, Info.of(entries));
        assertNotEquals(Info.EMPTY.with("x", "1").with("y", "2"), Info.EMPTY.with("y", "2").with("x", "1"), "order is part of the value");
    }

    @Test
    void invalidKeysAndValuesAndMissingKeysAreTypedErrors() {
        String longKey = "k".repeat(Info.MAX_KEY + 1);
        assertEquals(ErrorClass.INFO_KEY, assertThrows(LockstepException.class, () -> Info.EMPTY.with(longKey, "v")).errorClass());
        assertEquals(ErrorClass.INFO_KEY, assertThrows(LockstepException.class, () -> Info.EMPTY.with("", "v")).errorClass());
        assertEquals(ErrorClass.INFO_KEY, assertThrows(LockstepException.class, () -> Info.EMPTY.get(null)).errorClass());
        assertEquals(ErrorClass.INFO_VALUE, assertThrows(LockstepException.class,
                () -> Info.EMPTY.with("k", "v".repeat(Info.MAX_VALUE + 1))).errorClass());
        assertEquals(ErrorClass.INFO_VALUE, assertThrows(LockstepException.class, () -> Info.EMPTY.with("k", null)).errorClass());
        assertEquals(ErrorClass.INFO_NOKEY, assertThrows(LockstepException.class, () -> Info.EMPTY.without("k")).errorClass());
        assertEquals(Optional.of("x".repeat(Info.MAX_VALUE)), Info.EMPTY.with("k".repeat(Info.MAX_KEY), "x".repeat(Info.MAX_VALUE))
                .get("k".repeat(Info.MAX_KEY)), "the limits themselves are allowed");
    }

    @Test
    void theEnvironmentsHintsNameThisProcess() {
        Info env = Environment.info();
        assertEquals(List.of("host", "arch", "wdir", "thread_level"), env.keys());
        assertEquals(Optional.of(Environment.processorName()), env.get("host"));
        assertEquals(Optional.of("MPI_THREAD_SERIALIZED"), env.get("thread_level"));
    }
}
