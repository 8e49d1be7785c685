package org.rpcrdma4j.nfs3.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs3.Nfs3;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.TestServer;

/** The DS components, constructed as SCR would, serve together and validate their configuration. */
class ProgramComponentsTest {

    @TempDir
    Path temp;

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

    @Test
    void theMountComponentsHandlesWorkWithTheNfsComponent() throws IOException {
        Path directory = Files.createDirectories(temp.resolve("export"));
        int owner = Identity.handToOwner(directory);
        ExportsConfig config = config(temp.resolve("state").toString(), "/export " + directory + " 127.0.0.1/32(rw)");
        try (TestServer server = TestServer.start(new Nfs3ProgramComponent(config), new Mount3ProgramComponent(config));
             NfsClient client = new NfsClient(server.port(), owner, owner)) {
            byte[] root = client.mountRoot("/export");
            byte[] file = client.create(root, "via-components", 0644);
            assertEquals(Nfs3.NF3REG, client.getattr(file).type());
        }
        assertTrue(Files.exists(directory.resolve("via-components")));
    }

    @Test
    void invalidConfigurationNamesTheProperty() throws IOException {
        Path directory = Files.createDirectories(temp.resolve("export"));
        String state = temp.resolve("state").toString();
        assertMessage("property exports: at least one", () -> new Nfs3ProgramComponent(config(state)));
        assertMessage("property exports: export option 'bogus'",
                () -> new Nfs3ProgramComponent(config(state, "/export " + directory + " *(bogus)")));
        assertMessage("property stateDirectory", () -> new Mount3ProgramComponent(
                config("relative", "/export " + directory + " *")));
        assertMessage("property exports: export directory",
                () -> new Mount3ProgramComponent(config(state, "/export " + temp.resolve("missing") + " *")));
    }

    private static void assertMessage(String expected, Executable executable) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(e.getMessage().startsWith(expected), "message '" + e.getMessage() + "' starts with " + expected);
    }
}
