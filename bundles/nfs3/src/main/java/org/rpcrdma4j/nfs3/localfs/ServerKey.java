package org.rpcrdma4j.nfs3.localfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * ServerKey - the secret that authenticates file handles, kept on disk so handles survive a
 * restart.
 *
 * <p>The key file holds {@link #KEY_BYTES} random bytes. It is created with mode 0600 on first
 * start (published atomically, so two starting servers agree on one key) and refused later if it has
 * the wrong size or is readable by group or others: anybody who reads it can forge handles.
 */
public final class ServerKey {

    /** Key length: the HMAC-SHA256 block-size-independent recommended minimum of 32 bytes. */
    public static final int KEY_BYTES = 32;
    /** Name of the key file inside the state directory. */
    public static final String FILE_NAME = "filehandle.key";

    private static final String ALGORITHM = "HmacSHA256";

    private final Mac prototype;
    /**
     * Each thread's keyed MAC: every call checks its file handle's MAC, and cloning the keyed
     * prototype per call (a Mac, its HmacCore and two digests) costs 3-7 % of the server's CPU
     * under the kernel client's workloads, HmacCore.clone among the top allocators.
     * {@link Mac#doFinal()} resets it for the next use.
     */
    private final ThreadLocal<Mac> perThread = ThreadLocal.withInitial(this::cloneOfPrototype);

    private ServerKey(byte[] key) throws GeneralSecurityException {
        prototype = Mac.getInstance(ALGORITHM);
        prototype.init(new SecretKeySpec(key, ALGORITHM));
    }

    private Mac cloneOfPrototype() {
        try {
            return (Mac) prototype.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's HmacSHA256 is cloneable", e);
        }
    }

    /**
     * Loads the key from the state directory, creating the directory (0700) and the key file
     * (0600) if absent.
     *
     * @param stateDirectory where the server keeps its state
     * @return the key
     * @throws IOException if the file cannot be created or read, or is unsafe
     */
    public static ServerKey loadOrCreate(Path stateDirectory) throws IOException {
        Files.createDirectories(stateDirectory,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path file = stateDirectory.resolve(FILE_NAME);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            create(file);
        }
        return load(file);
    }

    /**
     * Publishes a new key atomically: written and forced to a private temporary file first, then
     * hard-linked under the final name, which fails if another instance published first (then
     * theirs is used). A reader never sees a partly written key.
     */
    private static void create(Path file) throws IOException {
        byte[] key = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(key);
        Path temporary = Files.createTempFile(file.getParent(), FILE_NAME, ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer buffer = ByteBuffer.wrap(key);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            Files.createLink(file, temporary);
        } catch (FileAlreadyExistsException raced) {
            // Another instance published its key first: use theirs.
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    private static ServerKey load(Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("file handle key " + file + " is not a regular file");
        }
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
        for (PosixFilePermission p : permissions) {
            if (p.name().startsWith("GROUP") || p.name().startsWith("OTHERS")) {
                throw new IOException("file handle key " + file + " is accessible by group or others ("
                        + PosixFilePermissions.toString(permissions) + "); it must be 0600");
            }
        }
        byte[] key = Files.readAllBytes(file);
        if (key.length != KEY_BYTES) {
            throw new IOException("file handle key " + file + " has " + key.length + " bytes, expected " + KEY_BYTES);
        }
        try {
            return new ServerKey(key);
        } catch (GeneralSecurityException e) {
            throw new IOException("HMAC-SHA256 unavailable for the file handle key", e);
        }
    }

    /** HMAC-SHA256 of {@code data[0..length)}. Thread-safe: works on the calling thread's clone of the keyed MAC. */
    public byte[] mac(byte[] data, int length) {
        Mac mac = perThread.get();
        mac.update(data, 0, length);
        return mac.doFinal();
    }
}
