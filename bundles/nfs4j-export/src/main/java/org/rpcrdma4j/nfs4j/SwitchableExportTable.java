package org.rpcrdma4j.nfs4j;

import java.net.InetAddress;
import java.util.Objects;
import java.util.stream.Stream;
import org.dcache.nfs.ExportTable;
import org.dcache.nfs.FsExport;

/**
 * SwitchableExportTable - the export table nfs4j's servers hold, whose exports can be replaced
 * while they serve: a new configuration changes what clients may mount without restarting
 * nfs4j (its NFSv4 clients and their state stay).
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

    @Override
    public FsExport getExport(int index, InetAddress client) {
        return current.getExport(index, client);
    }
}
