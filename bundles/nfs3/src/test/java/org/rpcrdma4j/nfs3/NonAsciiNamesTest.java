package org.rpcrdma4j.nfs3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rpcrdma4j.nfs3.support.NfsClient.assertStatus;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs3.support.ForkedServer;
import org.rpcrdma4j.nfs3.support.Identity;
import org.rpcrdma4j.nfs3.support.NfsClient;
import org.rpcrdma4j.nfs3.support.XdrArgs;
import org.rpcrdma4j.nfs3.support.XdrReader;

/**
 * File names are bytes, as for knfsd: any bytes but '/' and NUL, whatever the server JVM's
 * locale. The server runs in a JVM of its own started in the C locale (where
 * {@code sun.jnu.encoding} is ANSI_X3.4-1968 and java.nio.file cannot map a non-ASCII String
 * to a path) and in C.UTF-8; UTF-8 names and names that are not UTF-8 at all must
 * round-trip byte-exact through LOOKUP, CREATE, MKDIR, READDIR(PLUS), RENAME, REMOVE, SYMLINK
 * and READLINK, and be those bytes on disk.
 *
 * <p>The checks of the disk use {@code Path.toUri()}, which percent-encodes a path's raw
 * bytes, so they hold whatever locale this test JVM has.
 */
class NonAsciiNamesTest {

    /** The certificate an extraction of a Debian tree stopped at. */
    private static final byte[] CERTIFICATE = utf8("NetLock_Arany_=Class_Gold=_F\u0151tan\u00fas\u00edtv\u00e1ny.pem");
    private static final byte[] RENAMED = utf8("F\u0151tan\u00fas\u00edtv\u00e1ny-\u6587\u4ef6.pem");
    private static final byte[] DIRECTORY = utf8("K\u00f6nyvt\u00e1r");
    /** "café" in ISO-8859-1: not UTF-8. */
    private static final byte[] LATIN1 = {'c', 'a', 'f', (byte) 0xe9};
    /** Bytes that are no text in any common charset. */
    private static final byte[] BINARY = {'r', 'a', 'w', '-', (byte) 0xff, (byte) 0xfe, (byte) 0x80, 'x'};

    @TempDir
    Path temp;

    private ForkedServer server;
    private NfsClient client;
    private Path exportDir;

    private byte[] mount(String locale) throws IOException {
        exportDir = Files.createDirectories(temp.resolve("export"));
        int owner = Identity.handToOwner(exportDir);
        int group = Identity.groupOf(exportDir);
        server = ForkedServer.start(locale, temp, "127.0.0.1/32(rw)");
        client = new NfsClient(server.port(), owner, group);
        return client.mountRoot("/export");
    }

    @AfterEach
    void stop() throws IOException {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void utf8NamesRoundTripInTheCLocale() throws IOException {
        byte[] root = mount("C");
        assertNotEquals("UTF-8", server.pathEncoding(), "the server JVM must map paths with a non-UTF-8 charset");
        utf8NamesRoundTrip(root);
    }

    @Test
    void utf8NamesRoundTripInAUtf8Locale() throws IOException {
        byte[] root = mount("C.UTF-8");
        utf8NamesRoundTrip(root);
    }

    @Test
    void namesThatAreNotUtf8RoundTripByteExactInTheCLocale() throws IOException {
        nonUtf8NamesRoundTrip(mount("C"));
    }

    @Test
    void namesThatAreNotUtf8RoundTripByteExactInAUtf8Locale() throws IOException {
        nonUtf8NamesRoundTrip(mount("C.UTF-8"));
    }

    private void utf8NamesRoundTrip(byte[] root) throws IOException {
        byte[] file = create(root, CERTIFICATE);
        assertTrue(namesOnDisk(exportDir).containsKey(key(CERTIFICATE)), "CREATE: the UTF-8 bytes on disk");
        assertArrayEquals(file, lookup(root, CERTIFICATE), "LOOKUP finds it");
        assertStatus(Nfs3.NFS3_OK, client.write(file, 0, new byte[] {'c'}, Nfs3.FILE_SYNC).status(), "WRITE");

        byte[] relative = concat(utf8("../etc/ssl/certs/"), CERTIFICATE);
        byte[] link = symlink(root, utf8("cert-link"), CERTIFICATE);
        byte[] deep = symlink(root, utf8("deep-link"), relative);
        assertArrayEquals(CERTIFICATE, readlinkOnDisk(exportDir, utf8("cert-link")), "SYMLINK: target bytes on disk");
        assertArrayEquals(relative, readlinkOnDisk(exportDir, utf8("deep-link")));
        assertArrayEquals(CERTIFICATE, readlink(link), "READLINK");
        assertArrayEquals(relative, readlink(deep), "READLINK of a relative target with components");

        byte[] subdirectory = mkdir(root, DIRECTORY);
        byte[] inner = create(subdirectory, CERTIFICATE);
        assertArrayEquals(inner, lookup(subdirectory, CERTIFICATE), "LOOKUP in a directory with a UTF-8 name");
        Path subdirectoryOnDisk = onDisk(exportDir, DIRECTORY);
        assertTrue(Files.isDirectory(subdirectoryOnDisk), "MKDIR: the UTF-8 bytes on disk");

        Map<String, byte[]> listed = readdirplus(root);
        assertArrayEquals(file, listed.get(key(CERTIFICATE)), "READDIRPLUS: the name's bytes with its handle");
        assertArrayEquals(subdirectory, listed.get(key(DIRECTORY)));
        assertEquals(List.of(".", "..", key(CERTIFICATE)), readdir(subdirectory), "READDIR");

        assertStatus(Nfs3.NFS3_OK, rename(root, CERTIFICATE, subdirectory, RENAMED), "RENAME");
        assertArrayEquals(file, lookup(subdirectory, RENAMED), "the handle follows the rename");
        assertStatus(Nfs3.NFS3ERR_NOENT, lookupStatus(root, CERTIFICATE), "the old name is gone");
        assertTrue(namesOnDisk(subdirectoryOnDisk).containsKey(key(RENAMED)), "RENAME: the new bytes on disk");
        assertStatus(Nfs3.NFS3_OK, remove(subdirectory, RENAMED), "REMOVE");
        assertEquals(List.of(key(CERTIFICATE)), new ArrayList<>(namesOnDisk(subdirectoryOnDisk).keySet()),
                "only the inner certificate is left");
    }

    private void nonUtf8NamesRoundTrip(byte[] root) throws IOException {
        byte[] file = create(root, LATIN1);
        assertTrue(namesOnDisk(exportDir).containsKey(key(LATIN1)), "CREATE: the bytes on disk, not re-encoded");
        assertArrayEquals(file, lookup(root, LATIN1), "LOOKUP");
        Files.createFile(onDisk(exportDir, BINARY));
        byte[] link = symlink(root, utf8("latin-link"), concat(utf8("dir/"), LATIN1));
        assertArrayEquals(concat(utf8("dir/"), LATIN1), readlinkOnDisk(exportDir, utf8("latin-link")));
        assertArrayEquals(concat(utf8("dir/"), LATIN1), readlink(link), "READLINK");

        Map<String, byte[]> listed = readdirplus(root);
        assertArrayEquals(file, listed.get(key(LATIN1)), "READDIRPLUS names the file with its own bytes");
        byte[] binary = listed.get(key(BINARY));
        assertNotNull(binary, "a name made on the server's disk is listed byte-exact: " + listed.keySet());
        assertArrayEquals(binary, lookup(root, BINARY), "and LOOKUP of those bytes finds it");
        assertStatus(Nfs3.NFS3_OK, rename(root, BINARY, root, concat(BINARY, LATIN1)), "RENAME");
        assertTrue(namesOnDisk(exportDir).containsKey(key(concat(BINARY, LATIN1))));
        assertStatus(Nfs3.NFS3_OK, remove(root, LATIN1), "REMOVE");
        assertTrue(!namesOnDisk(exportDir).containsKey(key(LATIN1)), "removed");
    }

    // ---- the client side: names as bytes ----

    private static void name(org.dcache.oncrpc4j.xdr.XdrEncodingStream out, byte[] dir, byte[] name) {
        out.xdrEncodeDynamicOpaque(dir);
        out.xdrEncodeDynamicOpaque(name);
    }

    private byte[] create(byte[] dir, byte[] name) throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_CREATE, out -> {
            name(out, dir, name);
            out.xdrEncodeInt(Nfs3.GUARDED);
            XdrArgs.sattrMode(out, 0644);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "CREATE " + Arrays.toString(name));
        return reply.readPostOpHandle();
    }

    private byte[] mkdir(byte[] dir, byte[] name) throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_MKDIR, out -> {
            name(out, dir, name);
            XdrArgs.sattrMode(out, 0755);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "MKDIR");
        return reply.readPostOpHandle();
    }

    private byte[] symlink(byte[] dir, byte[] name, byte[] target) throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_SYMLINK, out -> {
            name(out, dir, name);
            XdrArgs.sattrMode(out, -1);
            out.xdrEncodeDynamicOpaque(target);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "SYMLINK to " + Arrays.toString(target));
        return reply.readPostOpHandle();
    }

    private byte[] readlink(byte[] link) throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_READLINK, out -> out.xdrEncodeDynamicOpaque(link)).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "READLINK");
        reply.readPostOpAttr();
        return reply.readOpaque();
    }

    private int lookupStatus(byte[] dir, byte[] name) throws IOException {
        return client.nfs(Nfs3.NFSPROC3_LOOKUP, out -> name(out, dir, name)).status();
    }

    private byte[] lookup(byte[] dir, byte[] name) throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_LOOKUP, out -> name(out, dir, name)).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "LOOKUP " + Arrays.toString(name));
        return reply.readOpaque();
    }

    private int rename(byte[] fromDir, byte[] from, byte[] toDir, byte[] to) throws IOException {
        return client.nfs(Nfs3.NFSPROC3_RENAME, out -> {
            name(out, fromDir, from);
            name(out, toDir, to);
        }).status();
    }

    private int remove(byte[] dir, byte[] name) throws IOException {
        return client.nfs(Nfs3.NFSPROC3_REMOVE, out -> name(out, dir, name)).status();
    }

    /** READDIRPLUS in one page: every name (as {@link #key}) with its handle. */
    private Map<String, byte[]> readdirplus(byte[] dir) throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_READDIRPLUS, out -> {
            out.xdrEncodeDynamicOpaque(dir);
            out.xdrEncodeLong(0);
            out.xdrEncodeLong(0);
            out.xdrEncodeInt(64 * 1024);
            out.xdrEncodeInt(64 * 1024);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "READDIRPLUS");
        reply.readPostOpAttr();
        reply.readLong();
        Map<String, byte[]> entries = new HashMap<>();
        while (reply.readBool()) {
            reply.readLong();
            String name = key(reply.readOpaque());
            reply.readLong();
            reply.readPostOpAttr();
            entries.put(name, reply.readPostOpHandle());
        }
        assertTrue(reply.readBool(), "one page");
        return entries;
    }

    /** READDIR in one page: the names (as {@link #key}) in listing order. */
    private List<String> readdir(byte[] dir) throws IOException {
        XdrReader reply = client.nfs(Nfs3.NFSPROC3_READDIR, out -> {
            out.xdrEncodeDynamicOpaque(dir);
            out.xdrEncodeLong(0);
            out.xdrEncodeLong(0);
            out.xdrEncodeInt(64 * 1024);
        }).reader();
        assertStatus(Nfs3.NFS3_OK, reply.readInt(), "READDIR");
        reply.readPostOpAttr();
        reply.readLong();
        List<String> names = new ArrayList<>();
        while (reply.readBool()) {
            reply.readLong();
            names.add(key(reply.readOpaque()));
            reply.readLong();
        }
        assertTrue(reply.readBool(), "one page");
        return names;
    }

    // ---- the disk side, locale-independent ----

    /** A byte-exact map key: ISO-8859-1 maps every byte to one char. */
    private static String key(byte[] name) {
        return new String(name, StandardCharsets.ISO_8859_1);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    /** The path of an entry of a directory by its raw bytes (a percent-encoded file: URI). */
    private static Path onDisk(Path directory, byte[] name) {
        StringBuilder uri = new StringBuilder(directory.toUri().toString());
        if (uri.charAt(uri.length() - 1) != '/') {
            uri.append('/');
        }
        for (byte b : name) {
            uri.append('%').append(String.format("%02X", b & 0xff));
        }
        return Path.of(URI.create(uri.toString()));
    }

    /** The raw bytes of a path's last component, from its percent-encoded URI. */
    private static byte[] rawName(Path path) {
        String raw = path.toUri().getRawPath();
        if (raw.endsWith("/")) {
            raw = raw.substring(0, raw.length() - 1);
        }
        return percentDecode(raw.substring(raw.lastIndexOf('/') + 1));
    }

    private static byte[] percentDecode(String raw) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                bytes.write(Integer.parseInt(raw.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toByteArray();
    }

    /** The entries of a directory on disk, by their raw bytes (as {@link #key}). */
    private static Map<String, Path> namesOnDisk(Path directory) throws IOException {
        Map<String, Path> names = new HashMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                names.put(key(rawName(entry)), entry);
            }
        }
        return names;
    }

    /** The raw target bytes of a symbolic link, as readlink(1) prints them. */
    private static byte[] readlinkOnDisk(Path directory, byte[] name) throws IOException {
        Process readlink = new ProcessBuilder("readlink", "--", onDisk(directory, name).toUri().getPath()).start();
        byte[] out = readlink.getInputStream().readAllBytes();
        assertEquals(0, waitFor(readlink), "readlink");
        assertTrue(out.length > 0 && out[out.length - 1] == '\n');
        return Arrays.copyOf(out, out.length - 1);
    }

    private static int waitFor(Process process) {
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
