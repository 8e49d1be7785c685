package org.rpcrdma4j.nfs3.support;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * ServerTestBase - a fresh export {@code /export} (rw, root_squash, 127.0.0.1 only) owned by
 * the test owner, a server on 127.0.0.1 and a client acting as the owner, per test.
 */
public abstract class ServerTestBase {

    @TempDir
    protected Path temp;

    protected Path exportDir;
    protected TestServer server;
    protected NfsClient client;
    protected byte[] root;
    protected int owner;
    protected int group;

    /** The export rules of the tests of a class (default: read-write, root squashed). */
    protected String[] rules() {
        return new String[] {"127.0.0.1/32(rw,root_squash)"};
    }

    @BeforeEach
    void startServer() throws IOException {
        exportDir = TestServer.export(temp, rules()).directory();
        owner = Identity.handToOwner(exportDir);
        group = Identity.groupOf(exportDir);
        server = TestServer.start(temp.resolve("state"), TestServer.export(temp, rules()));
        client = new NfsClient(server.port(), owner, group);
        root = client.mountRoot("/export");
    }

    @AfterEach
    void stopServer() throws IOException {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
