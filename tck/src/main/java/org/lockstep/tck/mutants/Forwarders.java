package org.lockstep.tck.mutants;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.FieldManifestation;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.implementation.MethodCall;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Builds broken objects from real ones with Byte Buddy: a class that implements an interface of
 * the real object (a provider, communicator, request or device), forwards every call to the real
 * object, except the calls the breakage declares, which go to the breakage. The generated classes
 * live in this package (defined through a lookup), so breakages stay package-private.
 */
final class Forwarders {
    private static final Map<List<Class<?>>, Class<?>> TYPES = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT = new AtomicInteger();

    private Forwarders() {
    }

    /** {@code delegate} seen through {@code type}, with the calls {@code breakage} declares broken. */
    static <T> T forward(Class<T> type, T delegate, Object breakage) {
        Class<?> generated = TYPES.computeIfAbsent(List.of(type, breakage.getClass()), k -> make(type, breakage.getClass()));
        try {
            return type.cast(generated.getConstructor(type, breakage.getClass()).newInstance(delegate, breakage));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make a broken " + type.getSimpleName() + ": " + e, e);
        }
    }

    private static Class<?> make(Class<?> type, Class<?> breakageType) {
        try {
            DynamicType.Builder<?> b = new ByteBuddy().subclass(Object.class).implement(type)
                    .name(Forwarders.class.getPackageName() + ".Broken" + type.getSimpleName() + "$" + breakageType.getSimpleName()
                            + "$" + NEXT.incrementAndGet())
                    .defineField("delegate", type, Visibility.PRIVATE, FieldManifestation.FINAL)
                    .defineField("breakage", breakageType, Visibility.PRIVATE, FieldManifestation.FINAL)
                    .defineConstructor(Visibility.PUBLIC).withParameters(type, breakageType)
                    .intercept(MethodCall.invoke(Object.class.getConstructor())
                            .andThen(FieldAccessor.ofField("delegate").setsArgumentAt(0))
                            .andThen(FieldAccessor.ofField("breakage").setsArgumentAt(1)))
                    .method(ElementMatchers.isAbstract()).intercept(MethodCall.invokeSelf().onField("delegate").withAllArguments())
                    // A default method that only the provider can implement (checkpoints) reaches the real object too.
                    .method(ElementMatchers.isDefaultMethod().and(ElementMatchers.named("checkpoints")))
                    .intercept(MethodCall.invokeSelf().onField("delegate").withAllArguments());
            for (Method m : breakageType.getDeclaredMethods()) {
                if (Modifier.isStatic(m.getModifiers()) || m.isSynthetic() || !declares(type, m)) {
                    continue;
                }
                b = b.method(ElementMatchers.named(m.getName()).and(ElementMatchers.takesArguments(m.getParameterTypes())))
                        .intercept(MethodCall.invoke(m).onField("breakage").withAllArguments());
            }
            return b.make().load(Forwarders.class.getClassLoader(), ClassLoadingStrategy.UsingLookup.of(MethodHandles.lookup()))
                    .getLoaded();
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean declares(Class<?> type, Method m) {
        return Arrays.stream(type.getMethods()).anyMatch(i -> i.getName().equals(m.getName())
                && Arrays.equals(i.getParameterTypes(), m.getParameterTypes()) && i.getReturnType().equals(m.getReturnType()));
    }
}
