package org.rpcrdma4j.nfs4j;

import java.net.InetAddress;
import java.util.Objects;
import java.util.stream.Stream;
import org.dcache.nfs.ExportTable;
import org.dcache.nfs.FsExport;

/**
 * SwitchableExportTable - the export table nfs4j's servers hold, whose exports can be replaced
 * while they serve: a new configuration changes what clients may mount without restarting
 * nfs4j (its NFSv4 clients and their state stay). It also tells the call being served which
 * export nfs4j applies to the object it is about to touch ({@link #getExport(int, InetAddress)}).
 */
public final class SwitchableExportTable implements ExportTable {

    private volatile ExportTable current;

    /** A table serving these exports. */
    public SwitchableExportTable(ExportTable initial) {
        this.current = Objects.requireNonNull(initial, "initial");
    }

    /** Serves other exports from now on. */
    public void replace(ExportTable exports) {
        current = Objects.requireNonNull(exports, "exports");
    }

    /** The exports served now. */
    public ExportTable current() {
        return current;
    }

    @Override
    public Stream<FsExport> exports() {
        return current.exports();
    }

    @Override
    public Stream<FsExport> exports(InetAddress client) {
        return current.exports(client);
    }

    @Override
    public FsExport getExport(String path, InetAddress client) {
        return current.getExport(path, client);
    }

    /**
     * {@inheritDoc}
     *
     * <p>nfs4j looks up by index the export whose rules it applies to a handle's object, just
     * before it calls the file system to read or change it: the call's {@link CallerIdentity} is
     * told, so that the file system refuses an object outside that export (a handle paired with
     * another export's index).
     */
    @Override
    public FsExport getExport(int index, InetAddress client) {
        FsExport export = current.getExport(index, client);
        CallerIdentity.current().applying(export);
        return export;
    }
}
