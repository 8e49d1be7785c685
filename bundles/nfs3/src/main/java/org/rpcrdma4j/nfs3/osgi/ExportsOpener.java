package org.rpcrdma4j.nfs3.osgi;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rpcrdma4j.nfs3.Export;
import org.rpcrdma4j.nfs3.NfsExportService;

/**
 * ExportsOpener - turns an {@link ExportsConfig} into an {@link NfsExportService}, with errors
 * naming the configuration property.
 *
 * <p>The NFS and MOUNT programs come from one service opened from the configuration; both
 * sign handles with the same on-disk key for the same export ids, so a handle MNT hands out is
 * one the NFS program accepts.
 */
final class ExportsOpener {

    private ExportsOpener() {
    }

    /**
     * Opens the configured exports.
     *
     * @throws IllegalArgumentException naming {@code exports} or {@code stateDirectory} when a
     *     value is missing or invalid
     * @throws IOException if the file handle key cannot be created or read
     */
    static NfsExportService open(ExportsConfig config) throws IOException {
        String[] lines = config.exports();
        if (lines == null || lines.length == 0) {
            throw new IllegalArgumentException("property " + ExportsConfig.EXPORTS + ": at least one export is required");
        }
        List<Export> exports = new ArrayList<>();
        for (String line : lines) {
            try {
                exports.add(Export.parse(line));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("property " + ExportsConfig.EXPORTS + ": " + e.getMessage(), e);
            }
        }
        String state = config.stateDirectory();
        if (state == null || state.isBlank() || !Path.of(state).isAbsolute()) {
            throw new IllegalArgumentException("property " + ExportsConfig.STATE_DIRECTORY
                    + ": an absolute directory is required, was '" + state + "'");
        }
        try {
            return NfsExportService.open(exports, Path.of(state));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("property " + ExportsConfig.EXPORTS + ": " + e.getMessage(), e);
        }
    }
}
