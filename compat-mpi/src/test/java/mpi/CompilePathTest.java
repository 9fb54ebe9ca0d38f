package mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.spi.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program compiles with the bindings alone on its class path ({@code lockstep classpath --compile},
 * as with Open MPI's {@code mpijavac}): no member of a public class may name a Lockstep type in a
 * place javac weighs while compiling a call, such as a constructor overloaded with a public one.
 */
class CompilePathTest {

    private static final String PROGRAM = """
            import java.nio.ByteBuffer;
            import mpi.*;

            public class UsesConstructors {
                static final class Pair extends Struct {
                    final int left = addInt();
                    final int right = addDouble();
                    @Override protected Data newData() { return new Data(); }
                    final class Data extends Struct.Data { }
                }

                public static void main(String[] args) throws MPIException {
                    MPI.Init(args);
                    Op keepLarger = new Op(new UserFunction() {
                        @Override public void call(Object in, Object inOut, int count, Datatype type) { }
                    }, true);
                    Op viaBuffers = new Op(new UserFunction() {
                        @Override public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype type) { }
                    }, false);
                    Info info = new Info();
                    Datatype pair = new Pair().getType();
                    Status status = MPI.COMM_WORLD.iProbe(MPI.ANY_SOURCE, MPI.ANY_TAG);
                    System.out.println(keepLarger.isCommutative() + " " + viaBuffers + " " + info + " " + pair + " " + status);
                    MPI.Finalize();
                }
            }
            """;

    @Test
    void aProgramUsingThePublicConstructorsCompilesAgainstTheBindingsAlone(@TempDir Path dir)
            throws IOException, URISyntaxException {
        Path bindings = Path.of(MPI.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path source = Files.writeString(dir.resolve("UsesConstructors.java"), PROGRAM);
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow(() -> new AssertionError("no javac in this JDK"));
        StringWriter diagnostics = new StringWriter();
        PrintWriter printed = new PrintWriter(diagnostics);
        int exit = javac.run(printed, printed, "-cp", bindings.toString(), "-d", dir.toString(), "-proc:none", source.toString());
        assertEquals(0, exit, "compiled against " + bindings + " alone:\n" + diagnostics);
    }
}
