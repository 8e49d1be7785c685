package org.rpcrdma4j.nfs3.localfs;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.spi.FileSystemProvider;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * UnixStat - what one lstat(2) says of a local object (never following a final symbolic link):
 * the fields an NFS server reports (mode with type and set-id bits, nlink, uid, gid, size, rdev,
 * dev, ino, the three times in nanoseconds). Both NFS programs read attributes through it, once
 * per handle check and once per further object a reply describes, so it is on every call's path.
 *
 * <p>Two routes, one result ({@code UnixStatTest} holds both against stat(1)):
 * <ul>
 * <li><b>the JDK's own structure</b> (the default in the Karaf assembly): the typed
 *     {@code PosixFileAttributes} read is one lstat(2) into {@code sun.nio.fs.UnixFileAttributes},
 *     which holds every st_ field as a primitive; its fields are read here through
 *     {@link VarHandle}s. No attribute names are parsed, no map is built, nothing is boxed. It
 *     needs {@code java.base} to open {@code sun.nio.fs} to this code:
 *     {@value #OPEN_OPTION} (the assembly's {@code bin/setenv} passes it; on a module path,
 *     {@code =org.rpcrdma4j.nfs3}).</li>
 * <li><b>the {@code unix:} attribute map</b> otherwise (the package not opened, another JDK
 *     whose structure differs, a path of another file-system provider): java.nio's only public
 *     route to ctime, nlink, ino, rdev, the numeric owner and the set-id bits, from the same one
 *     lstat(2), but per read the attribute names are split, a set and a map are built and every
 *     value is boxed.</li>
 * </ul>
 * The lab's flight recordings over rxe (2026-12-06, 4 KiB random reads) put the map's building
 * at about a sixth of an NFS worker's Java time per READ; the typed read of the JDK structure
 * costs one object of about 150 bytes. {@link #route()} tells which route this JVM takes; the
 * NFS components log it when they start.
 */
public record UnixStat(int mode, int nlink, int uid, int gid, long size, long rdev, long dev, long ino,
        long atimeNanos, long mtimeNanos, long ctimeNanos) {

    /** The JVM option that lets {@link #of} read the JDK's own structure (class path and OSGi). */
    public static final String OPEN_OPTION = "--add-opens=java.base/sun.nio.fs=ALL-UNNAMED";

    private static final String UNIX_ATTRIBUTES =
            "unix:mode,ino,dev,rdev,nlink,uid,gid,size,lastAccessTime,lastModifiedTime,ctime";

    /** The provider whose paths {@code sun.nio.fs.UnixFileAttributes} describes. */
    private static final FileSystemProvider DEFAULT_PROVIDER = FileSystems.getDefault().provider();

    /** The JDK structure's fields, or null when this JVM does not let them be read. */
    private static final JdkFields JDK = JdkFields.find();

    /**
     * Reads the attributes of {@code path} without following a final symbolic link.
     *
     * @throws IOException as the file system reports it (NoSuchFileException when gone)
     */
    public static UnixStat of(Path path) throws IOException {
        // Only the default provider's paths have the JDK structure; another provider's typed view
        // lacks the fields (or does not exist): such a path is read once, through its map.
        if (JDK != null && path.getFileSystem().provider() == DEFAULT_PROVIDER) {
            PosixFileAttributes a = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.getClass() == JDK.type) {
                return JDK.read(a);
            }
        }
        return fromMap(path);
    }

    /**
     * Reads through the {@code unix:} attribute map, whatever this JVM allows: the route
     * {@link #of} falls back to (public for the tests and benchmarks that compare the two).
     */
    public static UnixStat fromMap(Path path) throws IOException {
        Map<String, Object> a = Files.readAttributes(path, UNIX_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        return new UnixStat((Integer) a.get("mode"), (Integer) a.get("nlink"), (Integer) a.get("uid"),
                (Integer) a.get("gid"), (Long) a.get("size"), (Long) a.get("rdev"), (Long) a.get("dev"),
                (Long) a.get("ino"), nanos(a.get("lastAccessTime")), nanos(a.get("lastModifiedTime")),
                nanos(a.get("ctime")));
    }

    /** @return whether {@link #of} reads the JDK's own structure in this JVM (else the map) */
    public static boolean readsJdkStructure() {
        return JDK != null;
    }

    /** @return a line for the log: which route {@link #of} takes in this JVM, and how to get the cheaper one */
    public static String route() {
        return JDK != null
                ? "one lstat(2) into the JDK's own structure (java.base opens sun.nio.fs)"
                : "the unix: attribute map, a map of boxed values per read (" + JdkFields.whyNot
                        + "; " + OPEN_OPTION + " avoids it)";
    }

    private static long nanos(Object time) {
        return ((FileTime) time).to(TimeUnit.NANOSECONDS);
    }

    /**
     * The st_ fields of {@code sun.nio.fs.UnixFileAttributes} (JDK 17 to 21 name them alike).
     *
     * <p>A record, not a class with final fields: HotSpot trusts a record's final fields as
     * constants (as it does static finals), so the JIT folds each {@link VarHandle} below, reached
     * through the static {@link #JDK}, to a plain field load. Held in an ordinary object's final
     * fields, every {@code get} takes VarHandle's generic route (its access-mode check and
     * method-handle lookup per field): in the lab's flight recording of 4 KiB random reads
     * (2026-12-07-0357, lkey) 10 of the NFS worker's 15 samples in {@link #of} were that check. On
     * the host under C2, four fields read through an ordinary object's handles cost 13 ns a read;
     * through this record's, nothing measurable (the loads fold and are hoisted).
     */
    private record JdkFields(Class<?> type, VarHandle mode, VarHandle nlink, VarHandle uid, VarHandle gid,
            VarHandle size, VarHandle rdev, VarHandle dev, VarHandle ino, VarHandle atimeSec, VarHandle atimeNsec,
            VarHandle mtimeSec, VarHandle mtimeNsec, VarHandle ctimeSec, VarHandle ctimeNsec) {
        /** Seconds whose nanoseconds still fit a long (about 292 years either side of 1970). */
        private static final long MAX_SECONDS = Long.MAX_VALUE / 1_000_000_000L - 1;
        private static final long MIN_SECONDS = Long.MIN_VALUE / 1_000_000_000L + 1;
        static String whyNot = "";

        /** The st_ fields in the record's order: the first {@value #INT_FIELDS} are ints, the rest longs. */
        private static final String[] FIELDS = {"st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_rdev",
            "st_dev", "st_ino", "st_atime_sec", "st_atime_nsec", "st_mtime_sec", "st_mtime_nsec", "st_ctime_sec",
            "st_ctime_nsec"};
        private static final int INT_FIELDS = 4;

        private static JdkFields of(Class<?> type, MethodHandles.Lookup l) throws ReflectiveOperationException {
            VarHandle[] h = new VarHandle[FIELDS.length];
            for (int i = 0; i < h.length; i++) {
                h[i] = l.findVarHandle(type, FIELDS[i], i < INT_FIELDS ? int.class : long.class);
            }
            return new JdkFields(type, h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11],
                    h[12], h[13]);
        }

        /** @return the fields, or null (and {@link #whyNot} says why) when they cannot be read here */
        static JdkFields find() {
            try {
                Class<?> type = Class.forName("sun.nio.fs.UnixFileAttributes", false, null);
                MethodHandles.Lookup l = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
                return of(type, l);
            } catch (ClassNotFoundException e) {
                whyNot = "this JDK has no sun.nio.fs.UnixFileAttributes";
            } catch (IllegalAccessException | SecurityException e) {
                whyNot = "java.base does not open sun.nio.fs to this code";
            } catch (ReflectiveOperationException | RuntimeException e) {
                whyNot = "this JDK's UnixFileAttributes differs (" + e + ")";
            }
            return null;
        }

        UnixStat read(Object a) {
            return new UnixStat((int) mode.get(a), (int) nlink.get(a), (int) uid.get(a), (int) gid.get(a),
                    (long) size.get(a), (long) rdev.get(a), (long) dev.get(a), (long) ino.get(a),
                    nanos((long) atimeSec.get(a), (long) atimeNsec.get(a)),
                    nanos((long) mtimeSec.get(a), (long) mtimeNsec.get(a)),
                    nanos((long) ctimeSec.get(a), (long) ctimeNsec.get(a)));
        }

        /** As FileTime.to(NANOSECONDS) does for the map's times: saturating at the long's range. */
        private static long nanos(long seconds, long nanos) {
            if (seconds > MAX_SECONDS) {
                return Long.MAX_VALUE;
            }
            if (seconds < MIN_SECONDS) {
                return Long.MIN_VALUE;
            }
            return seconds * 1_000_000_000L + nanos;
        }
    }
}
