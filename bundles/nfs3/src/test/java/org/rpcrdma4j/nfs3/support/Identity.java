package org.rpcrdma4j.nfs3.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Identity - the uids and gids tests act as. When the tests run as root (the usual case in the
 * build container) they hand the export to {@link #OWNER} so that squashing and permission
 * checks of a non-root caller are exercised; otherwise they act as the current user.
 */
public final class Identity {

    /** The uid owning the export in tests. */
    public static final int OWNER = 1000;
    /** Its gid. */
    public static final int GROUP = 1000;
    /** Another user, in no group of the owner. */
    public static final int STRANGER = 2000;

    private Identity() {
    }

    /** Whether the JVM runs as root (chown and foreign-owner tests need it). */
    public static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Gives a directory to {@link #OWNER} (as root) and returns the uid that owns it now. */
    public static int handToOwner(Path directory) throws IOException {
        if (isRoot()) {
            Files.setAttribute(directory, "unix:uid", OWNER, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(directory, "unix:gid", GROUP, LinkOption.NOFOLLOW_LINKS);
        }
        return (Integer) Files.getAttribute(directory, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    /** The gid owning a path. */
    public static int groupOf(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:gid", LinkOption.NOFOLLOW_LINKS);
    }
}
