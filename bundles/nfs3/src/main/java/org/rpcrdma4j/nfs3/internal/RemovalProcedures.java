package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.rpcrdma4j.nfs3.Nfs3;

/**
 * RemovalProcedures - REMOVE, RMDIR, RENAME and LINK (RFC 1813 §3.3.12-15): the procedures
 * that take names away or add a second name, with sticky-directory rules and the inode index
 * kept in step.
 */
public final class RemovalProcedures {

    private RemovalProcedures() {
    }

    /** Adds these procedures to a dispatch table. */
    public static void register(ProcedureTable table) {
        table.addUnbinding(Nfs3.NFSPROC3_REMOVE, FailureArm.WCC, in -> removal(in, false));
        table.addUnbinding(Nfs3.NFSPROC3_RMDIR, FailureArm.WCC, in -> removal(in, true));
        table.addUnbinding(Nfs3.NFSPROC3_RENAME, FailureArm.TWO_WCC, RemovalProcedures::rename);
        table.add(Nfs3.NFSPROC3_LINK, FailureArm.POST_OP_ATTR_AND_WCC, RemovalProcedures::link);
    }

    private static Procedure.Action removal(XdrDecodingStream in, boolean directoryWanted) throws IOException {
        byte[] dir = Xdr3.decodeHandle(in);
        FileName name = FileName.decode(in, Xdr3.PATH_MAX);
        return request -> {
            Target directory = request.resolve(dir).requireWritable();
            return Procedure.attempt(() -> {
                directory.requireDirectory();
                Names.requireRemovableName(name);
                Path path = directory.child(name);
                FileAttributes victim = FileAttributes.read(path);
                if (directoryWanted && !victim.isDirectory()) {
                    throw new NfsException(Nfs3.NFS3ERR_NOTDIR, name + " is not a directory");
                }
                if (!directoryWanted && victim.isDirectory()) {
                    throw new NfsException(Nfs3.NFS3ERR_ISDIR, name + " is a directory");
                }
                Permissions.requireUnlink(directory.caller(), directory.attributes(), victim);
                Files.delete(path);
                directory.root().forget(path, victim);
                request.state().openFiles().forget(victim.dev(), victim.ino());
                FileAttributes before = directory.attributes();
                FileAttributes after = directory.attributesNow();
                return Reply.ok(out -> Xdr3.encodeWcc(out, before, after));
            }, Procedure.wcc(directory));
        };
    }

    private static Procedure.Action rename(XdrDecodingStream in) throws IOException {
        byte[] fromDir = Xdr3.decodeHandle(in);
        FileName fromName = FileName.decode(in, Xdr3.PATH_MAX);
        byte[] toDir = Xdr3.decodeHandle(in);
        FileName toName = FileName.decode(in, Xdr3.PATH_MAX);
        return request -> {
            Target from = request.resolve(fromDir).requireWritable();
            Target to = request.resolve(toDir).requireWritable();
            return Procedure.attempt(() -> {
                from.requireSameExport(to);
                from.requireDirectory();
                to.requireDirectory();
                Names.requireRenameName(fromName);
                Names.requireRenameName(toName);
                Path source = from.child(fromName);
                Path target = to.child(toName);
                FileAttributes moving = FileAttributes.read(source);
                Permissions.requireUnlink(from.caller(), from.attributes(), moving);
                Permissions.requireModifyDirectory(to.caller(), to.attributes());
                FileAttributes replaced = checkReplaced(to, target, moving);
                if (moving.isDirectory() && to.path().startsWith(source)) {
                    throw new NfsException(Nfs3.NFS3ERR_INVAL, "cannot move a directory below itself");
                }
                boolean sameObject = replaced != null && replaced.dev() == moving.dev() && replaced.ino() == moving.ino();
                if (!sameObject) {
                    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
                    from.root().forget(target, replaced);
                    if (replaced != null) {
                        request.state().openFiles().forget(replaced.dev(), replaced.ino());
                    }
                    from.root().moved(source, target, moving);
                }
                return renamed(from, to);
            }, () -> out -> {
                Xdr3.encodeWcc(out, from.attributes(), from.attributesNow());
                Xdr3.encodeWcc(out, to.attributes(), to.attributesNow());
            });
        };
    }

    /** The attributes of the entry a RENAME would replace (null if none), if replacing it is allowed. */
    private static FileAttributes checkReplaced(Target to, Path target, FileAttributes moving)
            throws NfsException, IOException {
        FileAttributes replaced;
        try {
            replaced = FileAttributes.read(target);
        } catch (NoSuchFileException absent) {
            return null;
        }
        if (moving.isDirectory() && !replaced.isDirectory()) {
            throw new NfsException(Nfs3.NFS3ERR_NOTDIR, "a directory cannot replace a non-directory");
        }
        if (!moving.isDirectory() && replaced.isDirectory()) {
            throw new NfsException(Nfs3.NFS3ERR_ISDIR, "a non-directory cannot replace a directory");
        }
        Permissions.requireUnlink(to.caller(), to.attributes(), replaced);
        return replaced;
    }

    private static Reply renamed(Target from, Target to) {
        FileAttributes fromAfter = from.attributesNow();
        FileAttributes toAfter = to.attributesNow();
        return Reply.ok(out -> {
            Xdr3.encodeWcc(out, from.attributes(), fromAfter);
            Xdr3.encodeWcc(out, to.attributes(), toAfter);
        });
    }

    private static Procedure.Action link(XdrDecodingStream in) throws IOException {
        byte[] file = Xdr3.decodeHandle(in);
        byte[] dir = Xdr3.decodeHandle(in);
        FileName name = FileName.decode(in, Xdr3.PATH_MAX);
        return request -> {
            Target object = request.resolve(file);
            Target directory = request.resolve(dir).requireWritable();
            return Procedure.attempt(() -> {
                object.requireSameExport(directory);
                directory.requireDirectory();
                if (object.attributes().isDirectory()) {
                    throw new NfsException(Nfs3.NFS3ERR_ISDIR, "hard links to directories are not allowed");
                }
                Names.requireNewName(name);
                Permissions.requireModifyDirectory(directory.caller(), directory.attributes());
                Path link = directory.child(name);
                Files.createLink(link, object.path());
                FileAttributes linked = FileAttributes.read(link);
                directory.root().handleOf(link, linked);
                FileAttributes before = directory.attributes();
                FileAttributes after = directory.attributesNow();
                return Reply.ok(out -> {
                    Xdr3.encodePostOpAttr(out, linked);
                    Xdr3.encodeWcc(out, before, after);
                });
            }, () -> out -> {
                Xdr3.encodePostOpAttr(out, object.attributesNow());
                Xdr3.encodeWcc(out, directory.attributes(), directory.attributesNow());
            });
        };
    }
}
