package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.rpcrdma4j.nfs3.localfs.PathBytes;
import java.nio.file.Files;
import java.nio.file.Path;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * NamespaceProcedures - LOOKUP, CREATE, MKDIR, SYMLINK and MKNOD (RFC 1813 §3.3.3, 3.3.8-11).
 *
 * <p>Removal and renaming live in {@link RemovalProcedures}. Every name is checked by
 * {@link Names} before it is resolved, and resolved in its directory only, with no symbolic
 * link followed: nothing outside the export can be reached.
 */
public final class NamespaceProcedures {

    private NamespaceProcedures() {
    }

    /** Adds these procedures (and the removal ones) to a dispatch table. */
    public static void register(ProcedureTable table) {
        table.add(Nfs3.NFSPROC3_LOOKUP, FailureArm.POST_OP_ATTR, NamespaceProcedures::lookup);
        table.add(Nfs3.NFSPROC3_CREATE, FailureArm.WCC, NamespaceProcedures::create);
        table.add(Nfs3.NFSPROC3_MKDIR, FailureArm.WCC, NamespaceProcedures::mkdir);
        table.add(Nfs3.NFSPROC3_SYMLINK, FailureArm.WCC, NamespaceProcedures::symlink);
        table.add(Nfs3.NFSPROC3_MKNOD, FailureArm.WCC, NamespaceProcedures::mknod);
        RemovalProcedures.register(table);
    }

    private static Procedure.Action lookup(XdrDecodingStream in) throws IOException {
        byte[] dir = Xdr3.decodeHandle(in);
        FileName name = FileName.decode(in, Xdr3.PATH_MAX);
        return request -> {
            Target directory = request.resolve(dir);
            return Procedure.attempt(() -> {
                directory.requireDirectory();
                Permissions.require(directory.caller(), directory.attributes(), Permissions.EXECUTE);
                Path path = resolveForLookup(directory, name);
                FileAttributes attributes = FileAttributes.read(path);
                byte[] handle = directory.root().handleOf(path, attributes);
                return Reply.ok(out -> {
                    out.xdrEncodeDynamicOpaque(handle);
                    Xdr3.encodePostOpAttr(out, attributes);
                    Xdr3.encodePostOpAttr(out, directory.attributes());
                });
            }, Procedure.postOp(directory.attributes()));
        };
    }

    /** "." is the directory, ".." its parent except at the export root, which is its own parent. */
    private static Path resolveForLookup(Target directory, FileName name) throws NfsException {
        if (name.equals(FileName.DOT)) {
            return directory.path();
        }
        if (name.equals(FileName.DOT_DOT)) {
            return directory.path().equals(directory.root().root()) ? directory.path() : directory.path().getParent();
        }
        Names.requireComponent(name);
        return directory.child(name);
    }

    private static Procedure.Action create(XdrDecodingStream in) throws IOException {
        byte[] dir = Xdr3.decodeHandle(in);
        FileName name = FileName.decode(in, Xdr3.PATH_MAX);
        int how = in.xdrDecodeInt();
        SetAttributes set;
        long verifier = 0;
        switch (how) {
            case Nfs3.UNCHECKED:
            case Nfs3.GUARDED:
                set = SetAttributes.decode(in);
                break;
            case Nfs3.EXCLUSIVE:
                set = SetAttributes.NONE;
                verifier = Xdr3.decodeVerifier(in);
                break;
            default:
                throw Xdr3.garbage("createmode3 " + how);
        }
        long createVerifier = verifier;
        return request -> {
            Target directory = request.resolve(dir).requireWritable();
            return created(directory, name, path -> {
                switch (how) {
                    case Nfs3.EXCLUSIVE: return Creations.exclusive(directory, path, createVerifier);
                    case Nfs3.GUARDED: return ObjectCreator.create(directory, path, Files::createFile,
                            ObjectCreator.DEFAULT_FILE_MODE, set);
                    default: return Creations.unchecked(directory, path, set);
                }
            });
        };
    }

    private static Procedure.Action mkdir(XdrDecodingStream in) throws IOException {
        byte[] dir = Xdr3.decodeHandle(in);
        FileName name = FileName.decode(in, Xdr3.PATH_MAX);
        SetAttributes set = SetAttributes.decode(in);
        return request -> {
            Target directory = request.resolve(dir).requireWritable();
            return created(directory, name, path -> ObjectCreator.create(directory, path, Files::createDirectory,
                    ObjectCreator.DEFAULT_DIRECTORY_MODE, set.withoutSize()));
        };
    }

    private static Procedure.Action symlink(XdrDecodingStream in) throws IOException {
        byte[] dir = Xdr3.decodeHandle(in);
        FileName name = FileName.decode(in, Xdr3.PATH_MAX);
        SetAttributes set = SetAttributes.decode(in);
        byte[] data = Xdr3.decodeOpaque(in, Xdr3.PATH_MAX);
        return request -> {
            Target directory = request.resolve(dir).requireWritable();
            return created(directory, name, path -> {
                if (data.length == 0 || contains(data, (byte) 0)) {
                    throw new NfsException(Nfs3.NFS3ERR_INVAL, "symbolic link data is empty or has NUL");
                }
                // The link is stored as given (PathBytes) and never followed by this server.
                Path target = PathBytes.path(data);
                return ObjectCreator.create(directory, path, p -> Files.createSymbolicLink(p, target),
                        0777, set.withoutSize());
            });
        };
    }

    private static Procedure.Action mknod(XdrDecodingStream in) throws IOException {
        byte[] dir = Xdr3.decodeHandle(in);
        FileName name = FileName.decode(in, Xdr3.PATH_MAX);
        int type = in.xdrDecodeInt();
        if (type == Nfs3.NF3CHR || type == Nfs3.NF3BLK) {
            SetAttributes.decode(in);
            in.xdrDecodeInt(); // specdata1
            in.xdrDecodeInt(); // specdata2
        } else if (type == Nfs3.NF3SOCK || type == Nfs3.NF3FIFO) {
            SetAttributes.decode(in);
        }
        return request -> {
            Target directory = request.resolve(dir).requireWritable();
            return created(directory, name, path -> {
                if (type < Nfs3.NF3BLK || type > Nfs3.NF3FIFO || type == Nfs3.NF3LNK) {
                    throw new NfsException(Nfs3.NFS3ERR_BADTYPE, "MKNOD of type " + type);
                }
                // Java cannot create device nodes, sockets or FIFOs.
                throw new NfsException(Nfs3.NFS3ERR_NOTSUPP, "MKNOD is not supported");
            });
        };
    }

    private static boolean contains(byte[] bytes, byte b) {
        for (byte c : bytes) {
            if (c == b) {
                return true;
            }
        }
        return false;
    }

    /** Makes one object in a directory. */
    @FunctionalInterface
    private interface Maker {
        FileAttributes make(Path path) throws NfsException, IOException;
    }

    /**
     * The common frame of CREATE, MKDIR, SYMLINK and MKNOD: checks, creation, and the reply
     * post_op_fh3 + post_op_attr + the directory's wcc_data. Write permission on the directory
     * is checked where an entry is really added ({@link ObjectCreator}): CREATE UNCHECKED of an
     * existing file needs only write permission on the file, as open(O_CREAT) does.
     */
    private static Reply created(Target directory, FileName name, Maker maker) throws NfsException {
        return Procedure.attempt(() -> {
            directory.requireDirectory();
            Names.requireNewName(name);
            Path path = directory.child(name);
            FileAttributes attributes = maker.make(path);
            byte[] handle = directory.root().handleOf(path, attributes);
            FileAttributes before = directory.attributes();
            FileAttributes after = directory.attributesNow();
            return Reply.ok(out -> {
                Xdr3.encodePostOpHandle(out, handle);
                Xdr3.encodePostOpAttr(out, attributes);
                Xdr3.encodeWcc(out, before, after);
            });
        }, Procedure.wcc(directory));
    }
}
