package org.rpcrdma4j.nfs4j;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import javax.security.auth.Subject;
import org.dcache.nfs.ChimeraNFSException;
import org.dcache.nfs.status.AccessException;
import org.dcache.nfs.status.BadHandleException;
import org.dcache.nfs.status.InvalException;
import org.dcache.nfs.status.IsDirException;
import org.dcache.nfs.status.NameTooLongException;
import org.dcache.nfs.status.NoEntException;
import org.dcache.nfs.status.NotDirException;
import org.dcache.nfs.status.NotSuppException;
import org.dcache.nfs.status.PermException;
import org.dcache.nfs.status.StaleException;
import org.dcache.nfs.util.UnixSubjects;
import org.dcache.nfs.v4.NfsIdMapping;
import org.dcache.nfs.v4.SimpleIdMap;
import org.dcache.nfs.v4.xdr.nfsace4;
import org.dcache.nfs.vfs.AclCheckable;
import org.dcache.nfs.vfs.DirectoryEntry;
import org.dcache.nfs.vfs.FsStat;
import org.dcache.nfs.vfs.Inode;
import org.dcache.nfs.vfs.Stat;
import org.dcache.nfs.vfs.VirtualFileSystem;
import org.rpcrdma4j.nfs3.localfs.InodeIndex;
import org.rpcrdma4j.nfs3.localfs.OpenFiles;
import org.rpcrdma4j.nfs3.localfs.PathBytes;
import org.rpcrdma4j.nfs3.localfs.ServerKey;
import org.rpcrdma4j.nfs3.localfs.SetIdBits;
import org.rpcrdma4j.nfs3.localfs.VerifiedHandles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DirectoryFileSystem - one local directory tree as dCache nfs4j's {@link VirtualFileSystem}:
 * what nfs4j's NFSv4.1, NFSv3 and MOUNT servers serve through this bundle.
 *
 * <p>nfs4j decodes the calls, keeps NFSv4 state and checks export rules and UNIX permissions
 * (its {@code PseudoFs} wraps this class per call); this class does what is left, as knfsd would
 * for a server running as root:
 * <ul>
 * <li><b>Handles</b> are {@link InodeHandle}s (inode, type, HMAC with the {@link ServerKey}):
 *     unforgeable, and valid across restarts. An inode is found by the {@link InodeIndex}, which
 *     walks the tree after a restart; a handle for an object that is gone is stale.</li>
 * <li><b>Owners</b>: a new object belongs to the caller nfs4j passes (already squashed), with
 *     the parent's group when the parent has set-group-ID; set-user-ID and set-group-ID follow
 *     Linux ({@link SetIdBits}) for the caller {@link CallerIdentity} records; a caller that is
 *     not root may give a file only one of its own groups.</li>
 * <li><b>Names</b> are UTF-8 strings in nfs4j. On disk they are bytes, mapped exactly
 *     ({@link PathBytes}) whatever the JVM's locale. NFSv3 through nfs4j decodes a name that is
 *     not UTF-8 into U+FFFD replacement characters, so a new name containing U+FFFD is refused
 *     (NFS3ERR_INVAL / NFS4ERR_INVAL) rather than created under other bytes than the client
 *     sent; a name on disk that is not UTF-8 cannot be named in nfs4j's API and is left out of
 *     listings, with a warning naming its directory.</li>
 * <li><b>Data</b>: READ, WRITE and COMMIT borrow their file's channel from an {@link OpenFiles}
 *     cache (open once per file, not per call; stable WRITEs share fsyncs by group commit), as
 *     this project's NFSv3 program does; {@link #close} closes them.</li>
 * <li><b>One look per call</b>: within one RPC call (an NFSv4 COMPOUND) a handle is located, and
 *     its object's attributes read, once; a change through this file system makes the next look
 *     read again ({@link CallerIdentity#locatedEarlier}).</li>
 * <li><b>Failures</b> are nfs4j's status exceptions with the errno's NFS status.</li>
 * </ul>
 * Symbolic links are never followed: every path is read with NOFOLLOW_LINKS, and a path from
 * the index is used only after its parent resolved to itself.
 *
 * <p>Thread-safe.
 */
public final class DirectoryFileSystem implements VirtualFileSystem {

    private static final Logger LOG = LoggerFactory.getLogger(DirectoryFileSystem.class);

    /** First cookie of a listing: NFSv4 reserves 0, 1 and 2 (RFC 8881 §18.23.3). */
    private static final long FIRST_COOKIE = 3;
    /** Longest name in bytes (NAME_MAX). */
    private static final int NAME_MAX = 255;
    /** How many directories with names that are not UTF-8 are remembered for one warning each. */
    private static final int WARNED_MAX = 1024;

    private final Path root;
    private final ServerKey key;
    /** Handles that passed the MAC check under {@link #key}: a handle seen before costs no HMAC. */
    private final VerifiedHandles<InodeHandle, BadHandleException> handles;
    private final InodeIndex<UnixAttributes> index;
    private final Inode rootInode;
    private final NfsIdMapping idMapping = new SimpleIdMap();
    /** The channels of READ, WRITE and COMMIT, kept open between calls. */
    private final OpenFiles openFiles = new OpenFiles();
    private final Set<Path> warnedDirectories = ConcurrentHashMap.newKeySet();

    /**
     * Serves the tree under a directory.
     *
     * @param directory the directory (a symbolic link to it is resolved once, here)
     * @param key the key that signs this server's handles
     * @throws IllegalArgumentException if the directory does not exist or is not a directory
     * @throws IOException if it cannot be read
     */
    public DirectoryFileSystem(Path directory, ServerKey key) throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new IllegalArgumentException("root " + directory + ": not an existing directory");
        }
        this.root = directory.toRealPath();
        this.key = key;
        this.handles = new VerifiedHandles<>(InodeHandle.BYTES, InodeHandle.MAC_OFFSET,
                bytes -> InodeHandle.decode(bytes, key));
        UnixAttributes rootAttributes = UnixAttributes.read(root);
        this.index = new InodeIndex<>(root, rootAttributes, UnixAttributes.INDEXED);
        this.rootInode = Inode.forFile(rootAttributes.handle().encode(key));
    }

    /** close() - the server stops: the channels kept open for READ, WRITE and COMMIT are closed. */
    public void close() {
        openFiles.closeAll();
    }

    /** @return channels kept open now (tests) */
    int openChannels() {
        return openFiles.size();
    }

    /** The real path of the served directory. */
    public Path root() {
        return root;
    }

    // --- handles -------------------------------------------------------------------------------

    private Inode inodeOf(Path path, UnixAttributes attributes) {
        index.remember(path, attributes);
        return Inode.forFile(attributes.handle().encode(key));
    }

    /** The object an inode names: authenticated, found, and still of the handle's type. */
    private InodeIndex.Located<UnixAttributes> locate(Inode inode, CallerIdentity.Use use) throws IOException {
        CallerIdentity caller = CallerIdentity.current();
        byte[] bytes = inode.getFileIdKey().toBytes();
        InodeIndex.Located<UnixAttributes> found = caller.locatedEarlier(bytes);
        if (found == null) {
            InodeHandle handle = handles.verify(bytes);
            found = index.locate(handle.dev(), handle.ino(),
                    attributes -> handle.names(attributes.mode(), attributes.dev(), attributes.ino()));
            if (found == null) {
                throw new StaleException("no object (" + handle.dev() + ", " + handle.ino() + ") under the served root");
            }
            caller.rememberLocated(bytes, found);
        }
        if (!caller.mayUse(found.path(), use)) {
            throw new AccessException(use == CallerIdentity.Use.ATTRIBUTES
                    ? "object outside the exports this client is given"
                    : "object outside the export whose rules apply to its handle (" + use + ")");
        }
        return found;
    }

    /**
     * changed() - this call is about to change something (after its handles were located): what
     * they located is not kept past this point, so that the next look (a GETATTR after a WRITE in
     * the same COMPOUND, the wcc data of an NFSv3 reply) reads the object again.
     */
    private static void changed() {
        CallerIdentity.current().forgetLocated();
    }

    private Path directoryOf(Inode inode, CallerIdentity.Use use) throws IOException {
        InodeIndex.Located<UnixAttributes> found = locate(inode, use);
        if (!found.attributes().isDirectory()) {
            throw new NotDirException("not a directory");
        }
        return found.path();
    }

    /** The path of a name in a directory; the name is checked (not '.', '..', no '/' or NUL, NAME_MAX). */
    private static Path child(Path directory, String name) throws ChimeraNFSException {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                || name.indexOf('\0') >= 0) {
            throw new InvalException("invalid name");
        }
        if (bytes.length > NAME_MAX) {
            throw new NameTooLongException("name of " + bytes.length + " bytes");
        }
        return directory.resolve(PathBytes.component(bytes));
    }

    /** As {@link #child}, for a name about to be created: one with U+FFFD is refused. */
    private static Path newChild(Path directory, String name) throws ChimeraNFSException {
        if (name.indexOf('\uFFFD') >= 0) {
            throw new InvalException("name with U+FFFD: the client's bytes were not UTF-8 and are lost");
        }
        return child(directory, name);
    }

    // --- namespace -----------------------------------------------------------------------------

    @Override
    public Inode getRootInode() {
        return rootInode;
    }

    @Override
    public Inode lookup(Inode parent, String name) throws IOException {
        Path directory = directoryOf(parent, CallerIdentity.Use.READ);
        if (name.equals(".")) {
            return parent;
        }
        if (name.equals("..")) {
            return parentOf(parent);
        }
        Path path = child(directory, name);
        return inodeOf(path, read(path));
    }

    @Override
    public Inode parentOf(Inode inode) throws IOException {
        // nfs4j asks without looking up the handle's export first (ATTRIBUTES: no export in force)
        Path path = locate(inode, CallerIdentity.Use.ATTRIBUTES).path();
        if (path.equals(root)) {
            throw new NoEntException("the served root has no parent");
        }
        Path parent = path.getParent();
        return inodeOf(parent, read(parent));
    }

    @Override
    public Inode create(Inode parent, Stat.Type type, String name, Subject subject, int mode) throws IOException {
        if (type != Stat.Type.REGULAR) {
            // mknod(2) for devices, FIFOs and sockets is out of java.nio's reach.
            throw new NotSuppException("creating " + type + " objects is not supported");
        }
        Path directory = directoryOf(parent, CallerIdentity.Use.MODIFY);
        Path path = newChild(directory, name);
        changed();
        try {
            Files.createFile(path, ownerOnly(mode));
        } catch (IOException e) {
            throw failure(e);
        }
        return created(directory, path, subject, mode, false);
    }

    @Override
    public Inode mkdir(Inode parent, String name, Subject subject, int mode) throws IOException {
        Path directory = directoryOf(parent, CallerIdentity.Use.MODIFY);
        Path path = newChild(directory, name);
        changed();
        try {
            Files.createDirectory(path, ownerOnly(mode));
        } catch (IOException e) {
            throw failure(e);
        }
        return created(directory, path, subject, mode, true);
    }

    @Override
    public Inode symlink(Inode parent, String name, String target, Subject subject, int mode) throws IOException {
        Path directory = directoryOf(parent, CallerIdentity.Use.MODIFY);
        Path path = newChild(directory, name);
        if (target.isEmpty() || target.indexOf('\0') >= 0 || target.indexOf('\uFFFD') >= 0) {
            throw new InvalException("symbolic link data empty, with NUL, or not UTF-8");
        }
        changed();
        try {
            Files.createSymbolicLink(path, PathBytes.path(target.getBytes(StandardCharsets.UTF_8)));
            UnixAttributes directoryAttributes = UnixAttributes.read(directory);
            chown(path, UnixAttributes.read(path), (int) UnixSubjects.getUid(subject),
                    SetIdBits.creationGroup(directoryAttributes.mode(), directoryAttributes.gid(),
                            (int) UnixSubjects.getPrimaryGid(subject)));
            return inodeOf(path, UnixAttributes.read(path));
        } catch (IOException e) {
            throw failure(e);
        }
    }

    @Override
    public Inode link(Inode parent, Inode existing, String name, Subject subject) throws IOException {
        Path directory = directoryOf(parent, CallerIdentity.Use.MODIFY);
        InodeIndex.Located<UnixAttributes> target = locate(existing, CallerIdentity.Use.MODIFY);
        if (target.attributes().isDirectory()) {
            throw new IsDirException("hard link to a directory");
        }
        Path path = newChild(directory, name);
        changed();
        try {
            Files.createLink(path, target.path());
            return inodeOf(path, UnixAttributes.read(path));
        } catch (IOException e) {
            throw failure(e);
        }
    }

    @Override
    public void remove(Inode parent, String name) throws IOException {
        Path directory = directoryOf(parent, CallerIdentity.Use.MODIFY);
        Path path = child(directory, name);
        UnixAttributes victim = read(path);
        changed();
        try {
            Files.delete(path);
        } catch (IOException e) {
            throw failure(e);
        }
        index.forget(path, victim);
        openFiles.forget(victim.dev(), victim.ino());
    }

    @Override
    public boolean move(Inode source, String oldName, Inode destination, String newName) throws IOException {
        Path from = child(directoryOf(source, CallerIdentity.Use.MODIFY), oldName);
        Path to = newChild(directoryOf(destination, CallerIdentity.Use.MODIFY), newName);
        UnixAttributes moving = read(from);
        UnixAttributes replaced = readIfExists(to);
        if (replaced != null && replaced.dev() == moving.dev() && replaced.ino() == moving.ino()) {
            return false; // rename(2) of a link onto another link of the same inode does nothing
        }
        if (moving.isDirectory() && to.startsWith(from)) {
            throw new InvalException("a directory cannot move below itself");
        }
        changed();
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw failure(e);
        }
        if (replaced != null) {
            index.forget(to, replaced);
            openFiles.forget(replaced.dev(), replaced.ino());
        }
        index.moved(from, to, moving, moving.isDirectory());
        return true;
    }

    @Override
    public String readlink(Inode inode) throws IOException {
        InodeIndex.Located<UnixAttributes> link = locate(inode, CallerIdentity.Use.READ);
        if (!link.attributes().isSymbolicLink()) {
            throw new InvalException("not a symbolic link");
        }
        try {
            String text = utf8(PathBytes.bytesOf(Files.readSymbolicLink(link.path())));
            if (text == null) {
                throw new InvalException("symbolic link data is not UTF-8, which NFS through nfs4j cannot carry");
            }
            return text;
        } catch (IOException e) {
            throw failure(e);
        }
    }

    @Override
    public org.dcache.nfs.vfs.DirectoryStream list(Inode inode, byte[] verifier, long cookie) throws IOException {
        Path directory = directoryOf(inode, CallerIdentity.Use.READ);
        TreeMap<String, Path> sorted = new TreeMap<>();
        boolean unnamed = false;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                String name = utf8(PathBytes.nameOf(entry));
                if (name == null) {
                    unnamed = true;
                } else {
                    sorted.put(name, entry);
                }
            }
        } catch (IOException e) {
            throw failure(e);
        }
        if (unnamed && (warnedDirectories.size() < WARNED_MAX && warnedDirectories.add(directory))) {
            LOG.warn("{} holds names that are not UTF-8: NFS through nfs4j cannot name them, they are left out"
                    + " of its listings", directory);
        }
        List<DirectoryEntry> listed = new ArrayList<>(sorted.size());
        long next = FIRST_COOKIE;
        for (var entry : sorted.entrySet()) {
            UnixAttributes attributes = readIfExists(entry.getValue());
            if (attributes != null) {
                listed.add(new DirectoryEntry(entry.getKey(), inodeOf(entry.getValue(), attributes),
                        attributes.toStat(), next));
            }
            next++;
        }
        return new org.dcache.nfs.vfs.DirectoryStream(directoryVerifier(inode), listed).tail(cookie);
    }

    /**
     * The directory's modification time in nanoseconds: a listing's cookies are positions in
     * name order, valid as long as no entry was added or removed.
     */
    @Override
    public byte[] directoryVerifier(Inode inode) throws IOException {
        // nfs4j asks without looking up the handle's export first (ATTRIBUTES: no export in force)
        InodeIndex.Located<UnixAttributes> directory = locate(inode, CallerIdentity.Use.ATTRIBUTES);
        return ByteBuffer.allocate(8).putLong(directory.attributes().stat().mtimeNanos()).array();
    }

    // --- data ----------------------------------------------------------------------------------

    @Override
    @Deprecated
    public int read(Inode inode, byte[] data, long offset, int count) throws IOException {
        return read(inode, ByteBuffer.wrap(data, 0, count), offset);
    }

    @Override
    public int read(Inode inode, ByteBuffer data, long offset) throws IOException {
        return readAt(regularFile(inode, CallerIdentity.Use.READ), data, offset);
    }

    /**
     * The READ of an NFSv4 COMPOUND (nfs4j's READ calls this): one look at the file for the
     * type check, the data and end of file (the interface's default looks twice), end of file
     * when the read reaches the size that look read.
     */
    @Override
    public int read(Inode inode, ByteBuffer data, long offset, Runnable eofReached) throws IOException {
        InodeIndex.Located<UnixAttributes> file = regularFile(inode, CallerIdentity.Use.READ);
        int n = readAt(file, data, offset);
        if (offset + n >= file.attributes().size()) {
            eofReached.run();
        }
        return n;
    }

    /** Fills {@code data} from {@code offset} until full or the end of the file: the bytes read. */
    private int readAt(InodeIndex.Located<UnixAttributes> file, ByteBuffer data, long offset) throws IOException {
        UnixAttributes checked = file.attributes();
        try (OpenFiles.Lease lease = openFiles.open(file.path(), checked.dev(), checked.ino())) {
            FileChannel channel = lease.channel();
            int total = 0;
            while (data.hasRemaining()) {
                int n = channel.read(data, offset + total);
                if (n < 0) {
                    break;
                }
                total += n;
            }
            return total;
        } catch (OpenFiles.ReplacedException e) {
            throw new StaleException(e.getMessage());
        } catch (IOException e) {
            throw failure(e);
        }
    }

    @Override
    @Deprecated
    public WriteResult write(Inode inode, byte[] data, long offset, int count, StabilityLevel stability)
            throws IOException {
        return write(inode, ByteBuffer.wrap(data, 0, count), offset, stability);
    }

    @Override
    public WriteResult write(Inode inode, ByteBuffer data, long offset, StabilityLevel stability) throws IOException {
        InodeIndex.Located<UnixAttributes> file = regularFile(inode, CallerIdentity.Use.MODIFY);
        changed();
        UnixAttributes checked = file.attributes();
        try (OpenFiles.Lease lease = openFiles.openForWrite(file.path(), checked.dev(), checked.ino())) {
            FileChannel channel = lease.channel();
            int total = 0;
            while (data.hasRemaining()) {
                total += channel.write(data, offset + total);
            }
            if (stability != StabilityLevel.UNSTABLE) {
                // DATA_SYNC and FILE_SYNC alike: an fsync shared with the file's other stable
                // writers (group commit), covering data and metadata.
                lease.syncWrite();
            }
            SetIdBits.removeForWrite(CallerIdentity.current(), file.path(), checked.mode(), true);
            return new WriteResult(stability, total);
        } catch (OpenFiles.ReplacedException e) {
            throw new StaleException(e.getMessage());
        } catch (IOException e) {
            throw failure(e);
        }
    }

    @Override
    public void commit(Inode inode, long offset, int count) throws IOException {
        // nfs4j commits without looking up the handle's export first (no export in force); a
        // commit changes nothing a client could not reach
        InodeIndex.Located<UnixAttributes> file = regularFile(inode, CallerIdentity.Use.ATTRIBUTES);
        UnixAttributes checked = file.attributes();
        try (OpenFiles.Lease lease = openFiles.open(file.path(), checked.dev(), checked.ino())) {
            lease.channel().force(true); // fsync(2) flushes the file, whichever descriptor asks
        } catch (OpenFiles.ReplacedException e) {
            throw new StaleException(e.getMessage());
        } catch (IOException e) {
            throw failure(e);
        }
    }

    /** The regular file an inode names (as {@link #locate}); a directory or anything else is refused. */
    private InodeIndex.Located<UnixAttributes> regularFile(Inode inode, CallerIdentity.Use use) throws IOException {
        InodeIndex.Located<UnixAttributes> file = locate(inode, use);
        requireRegular(file.attributes());
        return file;
    }

    private static void requireRegular(UnixAttributes attributes) throws ChimeraNFSException {
        if (attributes.isDirectory()) {
            throw new IsDirException("a directory");
        }
        if (!attributes.isRegularFile()) {
            throw new InvalException("not a regular file");
        }
    }

    // --- attributes ----------------------------------------------------------------------------

    @Override
    public Stat getattr(Inode inode) throws IOException {
        return locate(inode, CallerIdentity.Use.ATTRIBUTES).attributes().toStat();
    }

    @Override
    public void setattr(Inode inode, Stat stat) throws IOException {
        InodeIndex.Located<UnixAttributes> object = locate(inode, CallerIdentity.Use.MODIFY);
        Path path = object.path();
        UnixAttributes current = object.attributes();
        CallerIdentity caller = CallerIdentity.current();
        changed();
        try {
            if (stat.isDefined(Stat.StatAttribute.SIZE)) {
                requireRegular(current);
                try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
                    file.setLength(stat.getSize());
                }
                SetIdBits.removeForWrite(caller, path, current.mode(), true);
            }
            boolean owner = stat.isDefined(Stat.StatAttribute.OWNER);
            boolean group = stat.isDefined(Stat.StatAttribute.GROUP);
            if (owner || group) {
                int gid = group ? stat.getGid() : current.gid();
                if (group && gid != current.gid() && !caller.isRoot() && !caller.inGroup(gid)) {
                    throw new PermException("only root may give a file a group its caller is not in");
                }
                chown(path, current, owner ? stat.getUid() : current.uid(), gid);
                current = UnixAttributes.read(path);
            }
            if (stat.isDefined(Stat.StatAttribute.MODE) && !current.isSymbolicLink()) {
                Files.setAttribute(path, "unix:mode", SetIdBits.chmodMode(caller, current.gid(), stat.getMode()),
                        LinkOption.NOFOLLOW_LINKS);
            }
            boolean atime = stat.isDefined(Stat.StatAttribute.ATIME);
            boolean mtime = stat.isDefined(Stat.StatAttribute.MTIME);
            if (atime || mtime) {
                Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setTimes(
                        mtime ? FileTime.fromMillis(stat.getMTime()) : null,
                        atime ? FileTime.fromMillis(stat.getATime()) : null, null);
            }
        } catch (ChimeraNFSException e) {
            throw e;
        } catch (IOException e) {
            throw failure(e);
        }
    }

    @Override
    public int access(Subject subject, Inode inode, int mode) throws IOException {
        // nfs4j's PseudoFs has checked the UNIX permissions (and the export's rules) already.
        locate(inode, CallerIdentity.Use.ATTRIBUTES);
        return mode;
    }

    @Override
    public FsStat getFsStat() throws IOException {
        FileStore store = Files.getFileStore(root);
        long total = store.getTotalSpace();
        return new FsStat(total, Long.MAX_VALUE, total - store.getUsableSpace(), 0);
    }

    @Override
    public nfsace4[] getAcl(Inode inode) throws IOException {
        locate(inode, CallerIdentity.Use.ATTRIBUTES);
        return new nfsace4[0];
    }

    /**
     * Accepts the empty ACL only: nfs4j sets the ACL it derives from the old one on every mode
     * change (SETATTR of FATTR4_MODE calls this with {@code Acls.adjust(getAcl(), mode)}, empty
     * here), so refusing that would refuse every chmod; any real ACL is NFS4ERR_NOTSUPP.
     */
    @Override
    public void setAcl(Inode inode, nfsace4[] acl) throws IOException {
        locate(inode, CallerIdentity.Use.MODIFY);
        if (acl != null && acl.length > 0) {
            throw new NotSuppException("ACLs are not supported; use the mode");
        }
    }

    @Override
    public boolean hasIOLayout(Inode inode) {
        return false;
    }

    @Override
    public AclCheckable getAclCheckable() {
        return AclCheckable.UNDEFINED_ALL;
    }

    @Override
    public NfsIdMapping getIdMapper() {
        return idMapping;
    }

    @Override
    public boolean getCaseInsensitive() {
        return false;
    }

    @Override
    public boolean getCasePreserving() {
        return true;
    }

    // --- helpers -------------------------------------------------------------------------------

    /** Gives a new object its owner, group and mode, and its handle. */
    private Inode created(Path directory, Path path, Subject subject, int mode, boolean isDirectory)
            throws IOException {
        try {
            UnixAttributes parent = UnixAttributes.read(directory);
            UnixAttributes made = UnixAttributes.read(path);
            int gid = SetIdBits.creationGroup(parent.mode(), parent.gid(), (int) UnixSubjects.getPrimaryGid(subject));
            chown(path, made, (int) UnixSubjects.getUid(subject), gid);
            Files.setAttribute(path, "unix:mode",
                    SetIdBits.creationMode(CallerIdentity.of(subject), parent.mode(), isDirectory, gid, mode),
                    LinkOption.NOFOLLOW_LINKS);
            return inodeOf(path, UnixAttributes.read(path));
        } catch (IOException e) {
            throw failure(e);
        }
    }

    /** lchown, only where something changes (a server not running as root can still serve its own files). */
    private static void chown(Path path, UnixAttributes current, int uid, int gid) throws IOException {
        if (current.uid() != uid) {
            Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        }
        if (current.gid() != gid) {
            Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /**
     * Permissions to create with: the mode's owner bits only (the umask may take more), so that
     * nobody else can open the object before its owner and mode are set.
     */
    private static FileAttribute<Set<PosixFilePermission>> ownerOnly(int mode) {
        EnumSet<PosixFilePermission> owner = EnumSet.noneOf(PosixFilePermission.class);
        if ((mode & 0400) != 0) {
            owner.add(PosixFilePermission.OWNER_READ);
        }
        if ((mode & 0200) != 0) {
            owner.add(PosixFilePermission.OWNER_WRITE);
        }
        if ((mode & 0100) != 0) {
            owner.add(PosixFilePermission.OWNER_EXECUTE);
        }
        return PosixFilePermissions.asFileAttribute(owner);
    }

    private static UnixAttributes read(Path path) throws IOException {
        try {
            return UnixAttributes.read(path);
        } catch (IOException e) {
            throw failure(e);
        }
    }

    private static UnixAttributes readIfExists(Path path) {
        try {
            return UnixAttributes.read(path);
        } catch (IOException e) {
            return null;
        }
    }

    /** A name's bytes as text when they are UTF-8, else null. */
    private static String utf8(byte[] bytes) {
        try {
            CharBuffer text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return text.toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** nfs4j's status exception for a java.nio failure. */
    private static ChimeraNFSException failure(IOException e) {
        return NfsFailures.of(e);
    }
}
