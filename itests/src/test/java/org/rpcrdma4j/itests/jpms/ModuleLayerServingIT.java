package org.rpcrdma4j.itests.jpms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;
import org.rpcrdma4j.itests.jpms.layer.LayerServer;

/**
 * The RDMA server without OSGi: in a child {@link ModuleLayer} built from the bundle jars exactly
 * as built (named modules; oncrpc4j and its dependencies as automatic modules), with the class
 * path out of sight, a host server with TCP and RDMA is assembled from what {@code ServiceLoader}
 * finds (the loopback verbs provider, both registration strategies, the NFS binding), and answers
 * one call from the Java client over RDMA, its argument pulled through a read chunk, with the same
 * reply as over TCP. Stopping it leaves no rpcrdma4j thread.
 *
 * <p>The assembling code, {@link LayerServer}, is put into the layer as an automatic module (a jar
 * made here of its package's compiled classes) and driven by reflection through java.base types.
 */
class ModuleLayerServingIT {
    private static final int ECHO = 1;
    /** Byte offset of the opaque argument's bytes in the call: its XDR position. */
    private static final int ARGUMENT_OFFSET = RpcMessage.NULL_AUTH_CALL_HEADER_BYTES + Integer.BYTES;
    private static final Set<String> DEPLOYED = Set.of(LayerServer.MODULE, "org.rpcrdma4j.verbs.loopback",
            "org.rpcrdma4j.registration.lkey", "org.rpcrdma4j.registration.frmr", "org.rpcrdma4j.binding.nfs",
            "org.rpcrdma4j.client");

    @Test
    void aServerAssembledFromServiceLoaderServesOverRdmaInAModuleLayer() throws Exception {
        ModuleLayer layer = layer();
        byte[] argument = new byte[3000];
        for (int i = 0; i < argument.length; i++) {
            argument[i] = (byte) (i * 13 + 5);
        }
        byte[] call = echoCall(0x4242, argument);
        Class<?> serverClass = layer.findLoader(LayerServer.MODULE).loadClass(LayerServer.class.getName());
        assertEquals(LayerServer.MODULE, serverClass.getModule().getName(), "the layer's own copy");
        Map<String, String> facts;
        byte[] overRdma;
        byte[] overTcp;
        try (AutoCloseable server = (AutoCloseable) serverClass.getConstructor().newInstance()) {
            overRdma = (byte[]) serverClass.getMethod("callOverRdma", byte[].class, int.class, int.class)
                    .invoke(server, call, ARGUMENT_OFFSET, argument.length);
            overTcp = callOverTcp((Integer) serverClass.getMethod("tcpPort").invoke(server), call);
            @SuppressWarnings("unchecked")
            Map<String, String> found = (Map<String, String>) serverClass.getMethod("facts").invoke(server);
            facts = found;
        }
        System.out.println("Served on the module path: " + facts);
        assertArrayEquals(echoReply(0x4242, argument), overRdma, "the echo over RDMA");
        assertArrayEquals(overRdma, overTcp, "the same reply over TCP");
        assertEquals("org.rpcrdma4j.verbs.loopback.LoopbackProvider", facts.get("provider"));
        assertEquals("[lkey, frmr]", facts.get("strategies"), "both strategies, lkey first and active");
        assertTrue(facts.get("bindings").contains("/100003"), "the NFS binding: " + facts.get("bindings"));
        assertEquals("{lkey=1}", facts.get("readsByStrategy"), "the argument came by one RDMA READ");
        assertEquals(List.of("org.rpcrdma4j.binding.nfs", "org.rpcrdma4j.client", LayerServer.MODULE,
                "org.rpcrdma4j.registration.frmr", "org.rpcrdma4j.registration.lkey", "org.rpcrdma4j.server",
                "org.rpcrdma4j.transport", "org.rpcrdma4j.verbs.loopback").toString(), facts.get("modules"));
        assertNoThreadLeft();
    }

    /** The layer: our bundle jars and their dependencies, plus the jar of {@link LayerServer}'s package. */
    private static ModuleLayer layer() throws Exception {
        Path bundles = Path.of(System.getProperty("itests.bundles.dir", "target/bundles"));
        assertTrue(Files.isDirectory(bundles), "bundle jars were copied to " + bundles);
        ModuleFinder finder = ModuleFinder.of(bundles, layerServerJar());
        Configuration configuration = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), DEPLOYED);
        // The platform loader as parent: the class path (where the same classes are) stays out of sight.
        return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    }

    /** @return a jar of the compiled classes of LayerServer's package, an automatic module named {@link LayerServer#MODULE} */
    private static Path layerServerJar() throws Exception {
        Path classes = Path.of(LayerServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String packagePath = LayerServer.class.getPackageName().replace('.', '/');
        Path jar = Path.of("target", "jpms-layer", "layer-server.jar");
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Automatic-Module-Name"), LayerServer.MODULE);
        try (OutputStream file = Files.newOutputStream(jar);
             JarOutputStream out = new JarOutputStream(file, manifest);
             Stream<Path> files = Files.list(classes.resolve(packagePath))) {
            for (Path classFile : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                out.putNextEntry(new JarEntry(packagePath + "/" + classFile.getFileName()));
                out.write(Files.readAllBytes(classFile));
                out.closeEntry();
            }
        }
        return jar;
    }

    private static void assertNoThreadLeft() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> left = ourThreads();
        while (!left.isEmpty() && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(50);
            left = ourThreads();
        }
        assertEquals(List.of(), left, "threads left running after the server stopped");
    }

    private static List<String> ourThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith("rpcrdma4j"))
                .sorted().toList();
    }

    /** An ECHO call (RFC 5531 §9, AUTH_NONE) of the layer server's program with an opaque argument. */
    private static byte[] echoCall(int xid, byte[] argument) {
        ByteBuffer b = ByteBuffer.allocate(ARGUMENT_OFFSET + (int) Xdr.roundUp(argument.length));
        RpcMessage.putCallHeader(b, xid, LayerServer.PROGRAM, 1, ECHO).putInt(argument.length).put(argument);
        return b.array();
    }

    /** The exact accepted reply to it: AUTH_NONE verifier, SUCCESS, the opaque. */
    private static byte[] echoReply(int xid, byte[] argument) {
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.NULL_AUTH_REPLY_HEADER_BYTES + Integer.BYTES
                + (int) Xdr.roundUp(argument.length));
        RpcMessage.putAcceptedReplyHeader(b, xid, RpcMessage.SUCCESS).putInt(argument.length).put(argument);
        return b.array();
    }

    /** One call over TCP with record marking (RFC 5531 §11): one last fragment each way. */
    private static byte[] callOverTcp(int port, byte[] call) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(0x8000_0000 | call.length);
            out.write(call);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int mark = in.readInt();
            assertTrue(mark < 0, "the reply is one last fragment");
            byte[] reply = new byte[mark & 0x7fff_ffff];
            in.readFully(reply);
            return reply;
        }
    }
}
