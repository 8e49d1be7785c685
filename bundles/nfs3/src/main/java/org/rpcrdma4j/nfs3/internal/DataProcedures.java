package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.rpcrdma4j.nfs3.localfs.SetIdBits;
import org.rpcrdma4j.nfs3.localfs.OpenFiles;
import org.rpcrdma4j.nfs3.localfs.PathBytes;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * DataProcedures - READLINK, READ, WRITE and COMMIT (RFC 1813 §3.3.5-7, 3.3.21).
 *
 * <p>READ, WRITE and COMMIT borrow their channels from the service's file cache
 * ({@link OpenFiles}: opened without following a final symbolic link, kept open between calls,
 * a read-only and a write-only channel per file). UNSTABLE writes are left to the page cache
 * and made durable by COMMIT ({@link FileChannel#force}); DATA_SYNC and FILE_SYNC writes are
 * made durable before the reply by an fsync they share with the file's other stable writers
 * ({@link OpenFiles.SyncGroup}: group commit, as knfsd's write gathering). The
 * write verifier changes on every server start, so a client holding uncommitted data after a
 * restart sees the change and writes again.
 *
 * <p>A WRITE by anyone but root clears set-user-ID and executable set-group-ID before the data
 * goes in ({@link SetIdBits}); the common file without such bits pays only a test of the
 * mode already read when the handle was resolved, and of the post-operation attributes the
 * reply carries anyway.
 */
public final class DataProcedures {

    /**
     * Each thread's READ buffer: direct, so the file is read into it without the JDK's hidden
     * bounce buffer, and reused, so a READ allocates nothing. A READ reply's body refers to it
     * and MUST be encoded on the same thread before that thread serves its next call: the
     * dispatcher replies (oncrpc4j's RpcCall.reply encodes at once) before it returns.
     */
    private static final ThreadLocal<ByteBuffer> READ_BUFFER =
            ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(AttributeProcedures.IO_MAX));

    private DataProcedures() {
    }

    /** Adds these procedures to a dispatch table. */
    public static void register(ProcedureTable table) {
        table.add(Nfs3.NFSPROC3_READLINK, FailureArm.POST_OP_ATTR, DataProcedures::readlink);
        table.add(Nfs3.NFSPROC3_READ, FailureArm.POST_OP_ATTR, DataProcedures::read);
        table.add(Nfs3.NFSPROC3_WRITE, FailureArm.WCC, DataProcedures::write);
        table.add(Nfs3.NFSPROC3_COMMIT, FailureArm.WCC, DataProcedures::commit);
    }

    private static Procedure.Action readlink(XdrDecodingStream in) throws IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        return request -> {
            Target link = request.resolve(handle);
            return Procedure.attempt(() -> {
                if (link.attributes().type() != Nfs3.NF3LNK) {
                    throw new NfsException(Nfs3.NFS3ERR_INVAL, "not a symbolic link");
                }
                byte[] data = PathBytes.bytesOf(Files.readSymbolicLink(link.path()));
                return Reply.ok(out -> {
                    Xdr3.encodePostOpAttr(out, link.attributes());
                    out.xdrEncodeDynamicOpaque(data);
                });
            }, Procedure.postOp(link.attributes()));
        };
    }

    private static Procedure.Action read(XdrDecodingStream in) throws IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        long offset = in.xdrDecodeLong();
        int count = in.xdrDecodeInt();
        return request -> {
            Target file = request.resolve(handle);
            return Procedure.attempt(() -> {
                file.requireRegularFile();
                Permissions.requireData(file.caller(), file.attributes(), Permissions.READ);
                int wanted = Integer.compareUnsigned(count, AttributeProcedures.IO_MAX) > 0
                        ? AttributeProcedures.IO_MAX : count;
                ByteBuffer data = READ_BUFFER.get();
                data.clear().limit(offset < 0 ? 0 : wanted);
                boolean eof = readAt(request.state().openFiles(), file, offset, data);
                data.flip();
                // The post-op attributes are those the handle check read just before the data:
                // a READ changes none a client caches by (only atime), and data at least as new
                // as the attributes is the safe order (a write in between shows up as a newer
                // mtime at the next GETATTR, and the client drops what it cached). One stat(2)
                // less per READ: attribute reads are 16-22 % of the server's CPU samples under
                // the kernel client's workloads.
                FileAttributes after = file.attributes();
                return Reply.ok(out -> {
                    Xdr3.encodePostOpAttr(out, after);
                    out.xdrEncodeInt(data.remaining());
                    out.xdrEncodeBoolean(eof);
                    out.xdrEncodeByteBuffer(data);
                });
            }, Procedure.postOp(file.attributes()));
        };
    }

    /**
     * A channel from the file cache on a regular file this call checked: read-only (READ, COMMIT)
     * or write-only (WRITE); a file that took its path since the check is NFS3ERR_STALE.
     */
    private static OpenFiles.Lease lease(OpenFiles files, Target file, boolean write) throws NfsException, IOException {
        FileAttributes checked = file.attributes();
        try {
            return write ? files.openForWrite(file.path(), checked.dev(), checked.ino())
                    : files.open(file.path(), checked.dev(), checked.ino());
        } catch (OpenFiles.ReplacedException e) {
            throw new NfsException(Nfs3.NFS3ERR_STALE, e.getMessage());
        }
    }

    /** Fills the buffer from the offset until full or end of file; returns whether EOF was reached. */
    private static boolean readAt(OpenFiles files, Target file, long offset, ByteBuffer data)
            throws NfsException, IOException {
        if (offset < 0) {
            return true; // beyond 2^63: nothing there
        }
        try (OpenFiles.Lease lease = lease(files, file, false)) {
            FileChannel channel = lease.channel();
            long position = offset;
            while (data.hasRemaining()) {
                int n = channel.read(data, position);
                if (n < 0) {
                    return true; // the file ends inside the range
                }
                position += n;
            }
            return endsAt(channel, position, file.attributes().size());
        }
    }

    /**
     * endsAt() - whether a READ that filled its whole range stopped at the end of the file. The
     * size the handle check read just before decides without a system call while the range ends
     * below it; only a range that reaches it (the file ends exactly there, or grew since) asks
     * fstat(2), which per READ is about a fifth of the workers' native samples in 4 KiB random
     * reads. A size that shrank since the check
     * answers "not yet", which costs the client one more READ and is never wrong about data.
     *
     * @param position the offset just past the last byte read
     * @param sizeSeen the file's size as this call's handle check read it
     */
    public static boolean endsAt(FileChannel channel, long position, long sizeSeen) throws IOException {
        return position >= sizeSeen && position >= channel.size();
    }

    private static Procedure.Action write(XdrDecodingStream in) throws IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        long offset = in.xdrDecodeLong();
        int count = in.xdrDecodeInt();
        int stable = in.xdrDecodeInt();
        ByteBuffer[] data = Xdr3.decodeData(in, AttributeProcedures.IO_MAX);
        if (stable < Nfs3.UNSTABLE || stable > Nfs3.FILE_SYNC) {
            throw Xdr3.garbage("stable_how " + stable);
        }
        return request -> {
            Target file = request.resolve(handle).requireWritable();
            return Procedure.attempt(() -> {
                file.requireRegularFile();
                long length = Xdr3.remaining(data);
                if (count != length) {
                    throw new NfsException(Nfs3.NFS3ERR_INVAL, "count " + count + " but " + length + " bytes");
                }
                if (offset < 0 || offset + count < 0) {
                    throw new NfsException(Nfs3.NFS3ERR_FBIG, "write beyond 2^63");
                }
                Permissions.requireData(file.caller(), file.attributes(), Permissions.WRITE);
                SetIdBits.removeForWrite(file.caller(), file.path(), file.attributes().mode(),
                        file.attributes().isRegularFile());
                writeAt(request.state().openFiles(), file, offset, data, stable);
                FileAttributes before = file.attributes();
                FileAttributes after = file.attributesNow();
                if (after != null && SetIdBits.removeForWrite(file.caller(), file.path(), after.mode(), after.isRegularFile())) {
                    after = file.attributesNow(); // a set-id bit was set while we wrote
                }
                FileAttributes reported = after;
                long verifier = request.state().writeVerifier();
                return Reply.ok(out -> {
                    Xdr3.encodeWcc(out, before, reported);
                    out.xdrEncodeInt(count);
                    out.xdrEncodeInt(stable);
                    Xdr3.encodeVerifier(out, verifier);
                });
            }, Procedure.wcc(file));
        };
    }

    /** Writes the payload's pieces (views of the call's memory) one after the other from {@code offset}. */
    private static void writeAt(OpenFiles files, Target file, long offset, ByteBuffer[] data, int stable)
            throws NfsException, IOException {
        try (OpenFiles.Lease lease = lease(files, file, true)) {
            FileChannel channel = lease.channel();
            long position = offset;
            for (ByteBuffer piece : data) {
                while (piece.hasRemaining()) {
                    position += channel.write(piece, position);
                }
            }
            if (stable != Nfs3.UNSTABLE) {
                // DATA_SYNC and FILE_SYNC alike: an fsync shared with the file's other stable
                // writers (group commit), covering data and metadata.
                lease.syncWrite();
            }
        }
    }

    private static Procedure.Action commit(XdrDecodingStream in) throws IOException {
        byte[] handle = Xdr3.decodeHandle(in);
        in.xdrDecodeLong(); // offset: the whole file is committed
        in.xdrDecodeInt(); // count
        return request -> {
            Target file = request.resolve(handle);
            return Procedure.attempt(() -> {
                file.requireRegularFile();
                Permissions.requireData(file.caller(), file.attributes(), Permissions.WRITE);
                try (OpenFiles.Lease lease = lease(request.state().openFiles(), file, false)) {
                    lease.channel().force(true); // fsync(2) flushes the file, whichever descriptor asks
                }
                FileAttributes before = file.attributes();
                FileAttributes after = file.attributesNow();
                long verifier = request.state().writeVerifier();
                return Reply.ok(out -> {
                    Xdr3.encodeWcc(out, before, after);
                    Xdr3.encodeVerifier(out, verifier);
                });
            }, Procedure.wcc(file));
        };
    }
}
