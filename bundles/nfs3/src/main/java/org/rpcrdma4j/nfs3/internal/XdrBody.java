package org.rpcrdma4j.nfs3.internal;

import java.io.IOException;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/**
 * XdrBody - the part of a reply that follows its status word, as a function writing XDR.
 */
@FunctionalInterface
public interface XdrBody {

    /** A body of nothing (void arms, and GETATTR's failure). */
    XdrBody EMPTY = out -> { };

    /** Writes this body. */
    void encode(XdrEncodingStream out) throws IOException;
}
