package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.rpcrdma4j.nfs3.localfs.PathBytes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.rpcrdma4j.nfs3.Mount3;

/**
 * MountPoint - the directory a MNT path names: the export root, or a directory below it
 * reached component by component without following symbolic links, each component searchable
 * by the caller.
 */
public record MountPoint(int status, byte[] handle) {

    /**
     * Resolves a MNT path inside an export whose path is its prefix.
     *
     * @return MNT3_OK with the root handle, or MNT3ERR_NOENT / NOTDIR / ACCES / INVAL
     */
    public static MountPoint resolve(ExportRoot root, String dirpath, Caller caller) {
        String rest = dirpath.substring(root.export().path().length());
        Path path = root.root();
        try {
            FileAttributes attributes = FileAttributes.read(path);
            for (String name : rest.split("/")) {
                if (name.isEmpty()) {
                    continue;
                }
                if (Names.isDot(name)) {
                    return failed(Mount3.MNT3ERR_INVAL);
                }
                if (!attributes.isDirectory()) {
                    return failed(Mount3.MNT3ERR_NOTDIR);
                }
                if (!Permissions.allowed(caller, attributes, Permissions.EXECUTE)) {
                    return failed(Mount3.MNT3ERR_ACCES);
                }
                path = path.resolve(PathBytes.component(name.getBytes(StandardCharsets.UTF_8)));
                attributes = FileAttributes.read(path);
            }
            if (!attributes.isDirectory()) {
                return failed(Mount3.MNT3ERR_NOTDIR);
            }
            return new MountPoint(Mount3.MNT3_OK, root.handleOf(path, attributes));
        } catch (java.nio.file.NoSuchFileException e) {
            return failed(Mount3.MNT3ERR_NOENT);
        } catch (IOException e) {
            return failed(Mount3.MNT3ERR_IO);
        }
    }

    private static MountPoint failed(int status) {
        return new MountPoint(status, null);
    }
}
