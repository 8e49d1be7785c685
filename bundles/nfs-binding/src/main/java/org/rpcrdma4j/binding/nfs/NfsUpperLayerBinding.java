package org.rpcrdma4j.binding.nfs;

import java.nio.ByteBuffer;
import java.util.List;

import org.osgi.service.component.annotations.Component;
import org.rpcrdma4j.binding.nfs.internal.Nfs3Replies;
import org.rpcrdma4j.binding.nfs.internal.Nfs4;
import org.rpcrdma4j.binding.nfs.internal.Nfs4Compounds;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;

/**
 * NfsUpperLayerBinding - the RFC 8267 binding of NFS (program {@value #NFS_PROGRAM}), versions 3
 * and 4, in one object, since the transport looks bindings up per program.
 *
 * <p>DDP-eligible reply items (RFC 8267 §5.1, §6.1): the data of an NFSv3 READ and the path of an
 * NFSv3 READLINK; in an NFSv4.x COMPOUND, the data of the first READ or the link text of the first
 * READLINK. A COMPOUND whose results before that operation include one this binding cannot skip
 * has no item (-1): the transport then sends the reply inline or through the reply chunk, which is
 * still correct, only not zero-copy.
 *
 * <p>Stateless: the same instance serves as the DS component (service property
 * {@value UpperLayerBinding#PROGRAM}={@value #NFS_PROGRAM}) and the {@link java.util.ServiceLoader}
 * provider; safe from any thread. Never throws for any content of a result.
 */
@Component(service = UpperLayerBinding.class,
        property = UpperLayerBinding.PROGRAM + ":Integer=" + NfsUpperLayerBinding.NFS_PROGRAM)
@ServiceProvider(value = UpperLayerBinding.class, resolution = Resolution.OPTIONAL)
public final class NfsUpperLayerBinding implements UpperLayerBinding {
    /** The NFS program number (RFC 1813, RFC 7530, RFC 8881). */
    public static final int NFS_PROGRAM = 100003;

    /** Creates the binding (DS, ServiceLoader, or plain Java). */
    public NfsUpperLayerBinding() {
    }

    @Override
    public int program() {
        return NFS_PROGRAM;
    }

    @Override
    public boolean isDdpEligibleReply(int version, int procedure) {
        switch (version) {
            case Nfs3Replies.VERSION:
                return Nfs3Replies.isDdpEligibleReply(procedure);
            case Nfs4.VERSION:
                return procedure == Nfs4.NFSPROC4_COMPOUND;
            default:
                return false;
        }
    }

    /**
     * NFSv3: the procedures knfsd's duplicate request cache keeps the replies of (RFC 1813
     * SETATTR 2, WRITE 7, CREATE 8, MKDIR 9, SYMLINK 10, MKNOD 11, REMOVE 12, RMDIR 13, RENAME
     * 14, LINK 15, COMMIT 21): running one of these twice changes the answer. Every other v3
     * procedure (NULL, GETATTR, LOOKUP, ACCESS, READLINK, READ, READDIR, READDIRPLUS, FSSTAT,
     * FSINFO, PATHCONF) runs again. NFSv4 COMPOUNDs are cached (but see the overload for minor
     * versions); the NULL procedure of any version is not.
     */
    @Override
    public boolean isNonIdempotent(int version, int procedure) {
        switch (version) {
            case Nfs3Replies.VERSION:
                return Nfs3Replies.isNonIdempotent(procedure);
            case Nfs4.VERSION:
                return procedure == Nfs4.NFSPROC4_COMPOUND;
            default:
                return procedure != 0;
        }
    }

    /**
     * NFSv4: a COMPOUND of minor version 1 or later is not cached: its first operation, SEQUENCE,
     * names a slot of the client's session, and the NFS server's slot table answers a
     * retransmission with the reply it kept (RFC 8881 section 2.10.6; knfsd caches no NFSv4
     * COMPOUND). A minor version 0 COMPOUND has no such cache and is cached here, as is one
     * whose minor version cannot be read (a malformed header or tag). Every other call as
     * {@link #isNonIdempotent(int, int)}.
     */
    @Override
    public boolean isNonIdempotent(int version, int procedure, List<ByteBuffer> call, int callLength,
            int argumentsOffset) {
        if (version != Nfs4.VERSION || procedure != Nfs4.NFSPROC4_COMPOUND) {
            return isNonIdempotent(version, procedure);
        }
        return Nfs4Compounds.minorVersion(call, callLength, argumentsOffset) <= 0;
    }

    @Override
    public int locateReplyItem(int version, int procedure, ByteBuffer result) {
        if (result == null || !isDdpEligibleReply(version, procedure)) {
            return -1;
        }
        return version == Nfs3Replies.VERSION
                ? Nfs3Replies.locateReplyItem(procedure, result)
                : Nfs4Compounds.locateReplyItem(result);
    }

    @Override
    public String toString() {
        return "UpperLayerBinding[NFS " + NFS_PROGRAM + " v3, v4]";
    }
}
