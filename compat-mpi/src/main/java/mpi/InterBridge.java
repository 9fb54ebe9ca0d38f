package mpi;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.LockstepException;

/**
 * Lockstep's {@link Communicator} over an {@link Intercommunicator}, so that the calls {@link Comm}
 * makes serve an {@link Intercomm} too: each call goes to the intercommunicator's method of the
 * same name and parameters; the general forms of the data-moving collectives become the simple
 * ones (at each rank only one side is significant, or both sides name the same data), blocking and
 * non-blocking alike; the bindings'
 * {@code MPI.ROOT} becomes {@link Intercommunicator#ROOT}. What an intercommunicator does not have
 * fails with {@link ErrorClass#UNSUPPORTED_OPERATION} naming it; hints are kept here.
 */
final class InterBridge implements InvocationHandler {
    private static final Set<String> ROOTED = Set.of("bcast", "gather", "scatter", "reduce", "gatherv", "scatterv");
    private static final Set<String> COLLECTIVES = Set.of("bcast", "gather", "scatter", "reduce", "gatherv", "scatterv",
            "allgather", "alltoall", "allgatherv", "alltoallv");

    private final Intercommunicator inter;
    /** The hints of the intercommunicator, which Lockstep's intercommunicators do not keep. */
    private volatile org.lockstep.api.Info hints = org.lockstep.api.Info.EMPTY;

    private InterBridge(Intercommunicator inter) {
        this.inter = inter;
    }

    static Communicator over(Intercommunicator inter) {
        return (Communicator) Proxy.newProxyInstance(InterBridge.class.getClassLoader(), new Class<?>[] {Communicator.class},
                new InterBridge(inter));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (method.getDeclaringClass() == Object.class) {
            return switch (name) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "intercommunicator " + inter;
            };
        }
        if (name.equals("setInfo")) {
            hints = (org.lockstep.api.Info) args[0];
            return null;
        }
        if (name.equals("info")) {
            return hints;
        }
        Object[] a = args == null ? new Object[0] : args.clone();
        Class<?>[] types = method.getParameterTypes();
        // a non-blocking collective (ibcast ... ialltoallv) is mapped as its blocking form is, and returns its request
        String form = name.startsWith("i") && COLLECTIVES.contains(name.substring(1)) ? name.substring(1) : name;
        if (ROOTED.contains(form) && types.length > 0 && types[types.length - 1] == int.class
                && (int) a[a.length - 1] == MPI.ROOT) {
            a[a.length - 1] = Intercommunicator.ROOT;
        }
        if (types.length == 7 && (form.equals("gather") || form.equals("scatter"))) {
            return simpleRooted(name, form, a);
        }
        if (types.length == 6 && (form.equals("allgather") || form.equals("alltoall"))) {
            return simpleAll(name, a);
        }
        if (types.length == 8 && (form.equals("gatherv") || form.equals("scatterv"))) {
            return oneTypeRooted(name, form, a);
        }
        if ((types.length == 7 && form.equals("allgatherv")) || (types.length == 8 && form.equals("alltoallv"))) {
            return oneTypeAll(name, form, a, types.length);
        }
        return call(name, types, method.getReturnType(), a);
    }

    /** The rooted general form at a rank where one side only is significant: the root's receive (gather) or send (scatter) side. */
    private Object simpleRooted(String name, String form, Object[] a) throws Throwable {
        int root = (int) a[6];
        boolean rootSide = root == Intercommunicator.ROOT;
        boolean gather = form.equals("gather");
        // gather: the root describes what it receives, the others what they send; scatter the other way round
        boolean sendSide = gather != rootSide;
        Object count = sendSide ? a[1] : a[4];
        Object type = sendSide ? a[2] : a[5];
        Class<?>[] simple = {java.lang.foreign.MemorySegment.class, long.class, org.lockstep.api.Datatype.class,
            java.lang.foreign.MemorySegment.class, int.class};
        return call(name, simple, void.class, new Object[] {a[0], count, type, a[3], root});
    }

    /** allgather and alltoall: the simple form, when both sides name the same elements. */
    private Object simpleAll(String name, Object[] a) throws Throwable {
        if (!a[1].equals(a[4]) || a[2] != a[5]) {
            throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, name + " on an intercommunicator with different send "
                    + "and receive counts or datatypes: Lockstep's intercommunicators take one count and datatype");
        }
        Class<?>[] simple = {java.lang.foreign.MemorySegment.class, long.class, org.lockstep.api.Datatype.class,
            java.lang.foreign.MemorySegment.class};
        return call(name, simple, void.class, new Object[] {a[0], a[1], a[2], a[3]});
    }

    /**
     * gatherv and scatterv with a datatype per side: the intercommunicator's form takes the one the
     * rank's side uses (the root's receive or send type; the other group's send or receive type).
     */
    private Object oneTypeRooted(String name, String form, Object[] a) throws Throwable {
        int root = (int) a[7];
        boolean gather = form.equals("gatherv");
        int sendType = gather ? 2 : 3;
        int recvType = 6;
        boolean sendSide = gather != (root == Intercommunicator.ROOT);
        Object type = a[sendSide ? sendType : recvType];
        Object[] args = gather ? new Object[] {a[0], a[1], type, a[3], a[4], a[5], root}
                : new Object[] {a[0], a[1], a[2], type, a[4], a[5], root};
        return call(name, parameterTypes(name, 7), void.class, args);
    }

    /** allgatherv and alltoallv: the intercommunicator's form, when both sides name the same datatype. */
    private Object oneTypeAll(String name, String form, Object[] a, int length) throws Throwable {
        int sendType = form.equals("allgatherv") ? 2 : 3;
        if (a[sendType] != a[length - 1]) {
            throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, name + " on an intercommunicator with different send "
                    + "and receive datatypes: Lockstep's intercommunicators take one datatype");
        }
        return call(name, parameterTypes(name, length - 1), void.class, java.util.Arrays.copyOf(a, length - 1));
    }

    /** The parameter types of the intercommunicator's method {@code name} of {@code count} parameters. */
    private static Class<?>[] parameterTypes(String name, int count) {
        for (Method m : Intercommunicator.class.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == count) {
                return m.getParameterTypes();
            }
        }
        throw unsupported(name);
    }

    private Object call(String name, Class<?>[] types, Class<?> returns, Object[] args) throws Throwable {
        Method target;
        try {
            target = Intercommunicator.class.getMethod(name, types);
        } catch (NoSuchMethodException e) {
            throw unsupported(name);
        }
        if (!returns.isAssignableFrom(target.getReturnType()) && returns != void.class) {
            throw unsupported(name);
        }
        try {
            return target.invoke(inter, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static LockstepException unsupported(String name) {
        return new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, name + " is not defined on an intercommunicator in "
                + "Lockstep's API (it has point-to-point, probe, barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v, w), "
                + "reduce, allreduce, reduce_scatter(_block), dup and merge)");
    }
}
