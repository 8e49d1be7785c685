package org.rpcrdma4j.nfs3.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.ResourceBundle;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.rpcrdma4j.nfs3.Mount3;
import org.rpcrdma4j.nfs3.Nfs3;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.TestServer;

/**
 * The DS component, constructed and reconfigured as SCR would: it registers the NFS and MOUNT
 * programs once, applies a good configuration live, and refuses a bad one with one ERROR line
 * naming the property while the previous exports keep answering.
 */
class ProgramComponentsTest {

    @TempDir
    Path temp;
    /** Every line the component logs at ERROR. */
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final System.Logger log = new System.Logger() {
        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
            if (level == Level.ERROR) {
                errors.add(message);
            }
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... parameters) {
            log(level, bundle, format, (Throwable) null);
        }
    };

    private static ExportsConfig config(String stateDirectory, String... exports) {
        return new ExportsConfig() {
            @Override
            public String[] exports() {
                return exports;
            }

            @Override
            public String stateDirectory() {
                return stateDirectory;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return ExportsConfig.class;
            }
        };
    }

    /** A bundle context that records the services registered and unregistered through it. */
    private static final class RecordingContext {
        final Map<Integer, RpcDispatchable> live = new HashMap<>();
        int registered;

        BundleContext proxy() {
            return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BundleContext.class},
                    (self, method, args) -> {
                        if (!method.getName().equals("registerService")) {
                            throw new UnsupportedOperationException(method.getName());
                        }
                        Dictionary<?, ?> properties = (Dictionary<?, ?>) args[2];
                        int program = (Integer) properties.get("rpc.program");
                        assertEquals(program == Nfs3.PROGRAM ? Nfs3.VERSION : Mount3.VERSION, properties.get("rpc.version"));
                        live.put(program, (RpcDispatchable) args[1]);
                        registered++;
                        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServiceRegistration.class},
                                (registration, call, none) -> {
                                    if (call.getName().equals("unregister")) {
                                        live.remove(program);
                                        return null;
                                    }
                                    throw new UnsupportedOperationException(call.getName());
                                });
                    });
        }

        TestServer serve() throws IOException {
            return TestServer.start(live.get(Nfs3.PROGRAM), live.get(Mount3.PROGRAM));
        }
    }

    @Test
    void aBadConfigurationIsRefusedInOneLineAndThePreviousExportsKeepServing() throws IOException {
        Path directory = Files.createDirectories(temp.resolve("export"));
        Path other = Files.createDirectories(temp.resolve("other"));
        int owner = Identity.handToOwner(directory);
        Identity.handToOwner(other);
        String state = temp.resolve("state").toString();
        RecordingContext context = new RecordingContext();
        Nfs3ExportsComponent component = new Nfs3ExportsComponent(context.proxy(),
                config(state, "/export " + directory + " 127.0.0.1/32(rw)"), log);
        try (TestServer server = context.serve(); NfsClient client = new NfsClient(server.port(), owner, owner)) {
            assertEquals(2, context.registered, "NFS and MOUNT registered");
            byte[] root = client.mountRoot("/export");
            byte[] file = client.create(root, "before", 0644);

            component.modified(config(state, "/export " + directory + " 127.0.0.1/32(rw,bogus)"));
            assertEquals(1, errors.size(), "one ERROR line: " + errors);
            String error = errors.get(0);
            assertTrue(error.contains("configuration org.rpcrdma4j.nfs3 refused, the previous exports keep serving: "
                    + "property exports: export option 'bogus'"), error);
            assertEquals(2, context.registered, "nothing registered anew");
            assertEquals(2, context.live.size(), "nothing unregistered");
            assertEquals(Nfs3.NF3REG, client.getattr(file).type(), "the old export still answers NFS");
            assertEquals(Nfs3.NF3REG, client.getattr(client.lookup(client.mountRoot("/export"), "before")).type(),
                    "and MOUNT");

            component.modified(config(state, "/export " + directory + " 127.0.0.1/32(rw)",
                    "/other " + other + " 127.0.0.1/32(rw)"));
            assertEquals(1, errors.size(), "a good configuration is not an error: " + errors);
            assertEquals(2, context.registered, "the same two services serve the new exports");
            client.create(client.mountRoot("/other"), "after", 0644);
            assertEquals(Nfs3.NF3REG, client.getattr(file).type(), "same key: the handle stays valid");
        } finally {
            component.deactivate();
        }
        assertTrue(Files.exists(other.resolve("after")));
        assertEquals(Map.of(), context.live, "deactivation unregisters both");
    }

    @Test
    void aBadFirstConfigurationRegistersNothingUntilAGoodOne() throws IOException {
        Path directory = Files.createDirectories(temp.resolve("export"));
        int owner = Identity.handToOwner(directory);
        String state = temp.resolve("state").toString();
        RecordingContext context = new RecordingContext();
        Nfs3ExportsComponent component = new Nfs3ExportsComponent(context.proxy(), config(state), log);
        try {
            assertEquals(0, context.registered);
            assertEquals(List.of("configuration org.rpcrdma4j.nfs3 refused, nothing is exported: "
                    + "property exports: at least one export is required"), errors);
            component.modified(config(state, "/export " + directory + " 127.0.0.1/32(rw)"));
            assertEquals(2, context.registered);
            try (TestServer server = context.serve(); NfsClient client = new NfsClient(server.port(), owner, owner)) {
                assertEquals(Nfs3.NF3REG, client.getattr(client.create(client.mountRoot("/export"), "f", 0644)).type());
            }
        } finally {
            component.deactivate();
        }
    }

    @Test
    void eachFaultNamesItsProperty() throws IOException {
        Path directory = Files.createDirectories(temp.resolve("export"));
        String state = temp.resolve("state").toString();
        LiveExports exports = new LiveExports();
        assertTrue(exports.apply(config(state)).startsWith("property exports: at least one"));
        assertTrue(exports.apply(config(state, "/export " + directory + " *(bogus)"))
                .startsWith("property exports: export option 'bogus'"));
        assertTrue(exports.apply(config("relative", "/export " + directory + " *")).startsWith("property stateDirectory"));
        assertTrue(exports.apply(config(state, "/export " + temp.resolve("missing") + " *"))
                .startsWith("property exports: export directory"));
        Files.writeString(temp.resolve("file"), "not a directory");
        String unusable = exports.apply(config(temp.resolve("file").toString(), "/export " + directory + " *"));
        assertTrue(unusable.startsWith("property stateDirectory '" + temp.resolve("file") + "'"), unusable);
        assertNull(exports.apply(config(state, "/export " + directory + " *")));
        assertTrue(exports.serving());
    }
}
