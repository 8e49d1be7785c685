package org.rpcrdma4j.benchmarks.hosted;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs3.internal.Xdr3;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;

/**
 * BenchProgram - the oncrpc4j program both transports serve: NULL; ECHO of an opaque; READ(n)
 * answering the first n bytes of a fixed {@value #MAX_READ_BYTES}-byte pattern as an opaque, the
 * shape of an NFS READ reply (its data a DDP-eligible item, see {@link #BINDING}); WRITE of an
 * opaque, the shape of an NFS WRITE (over RDMA its data comes in a read chunk), read where the
 * call holds it as the NFS programs read theirs, and answered with its length.
 *
 * <p>The READ data are built once, so a call costs the transport's work and oncrpc4j's encoding,
 * not the program's. Threading: stateless apart from that immutable array; any worker may run it.
 */
final class BenchProgram implements RpcDispatchable {
    static final int PROGRAM = 0x2000_0b5c;
    static final int VERSION = 1;
    static final int NULL = 0;
    static final int ECHO = 1;
    static final int READ = 2;
    static final int WRITE = 3;
    /** Longest READ reply the program serves. */
    static final int MAX_READ_BYTES = 1 << 20;

    /**
     * READ replies carry their data as a DDP-eligible item: the opaque that starts the results;
     * every procedure is idempotent (no reply cache).
     */
    static final UpperLayerBinding BINDING = new UpperLayerBinding() {
        @Override
        public int program() {
            return BenchProgram.PROGRAM;
        }

        @Override
        public boolean isDdpEligibleReply(int version, int procedure) {
            return version == VERSION && procedure == READ;
        }

        @Override
        public int locateReplyItem(int version, int procedure, ByteBuffer result) {
            return result.remaining() >= 4 ? 0 : -1;
        }

        /** NULL, ECHO and READ change nothing: a retransmission may run again (TCP has no cache either). */
        @Override
        public boolean isNonIdempotent(int version, int procedure) {
            return false;
        }
    };

    private final byte[] data = BenchRpc.pattern(MAX_READ_BYTES);

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case NULL -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case ECHO -> {
                XdrOpaque argument = new XdrOpaque();
                call.retrieveCall(argument);
                call.reply(argument);
            }
            case READ -> {
                XdrInt n = new XdrInt();
                call.retrieveCall(n);
                if (n.intValue() < 0 || n.intValue() > MAX_READ_BYTES) {
                    call.failRpcGarbage();
                    return;
                }
                call.reply(new XdrOpaque(n.intValue() == MAX_READ_BYTES ? data : Arrays.copyOf(data, n.intValue())));
            }
            case WRITE -> {
                WriteArguments written = new WriteArguments();
                call.retrieveCall(written);
                call.reply(new XdrInt(written.length));
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /**
     * A WRITE's argument, decoded by the NFS programs' own {@link Xdr3#decodeData}: the length
     * inline, the bytes as views of the call's buffer, never copied out: over RDMA where the RDMA
     * READ put them. Every byte is summed, as a write reads every byte.
     */
    static final class WriteArguments implements XdrAble {
        int length;
        long sum;

        @Override
        public void xdrDecode(XdrDecodingStream in) throws OncRpcException, IOException {
            ByteBuffer[] pieces = Xdr3.decodeData(in, MAX_READ_BYTES);
            for (ByteBuffer piece : pieces) {
                for (int at = piece.position(); at < piece.limit(); at++) {
                    sum += piece.get(at);
                }
                length += piece.remaining();
            }
        }

        @Override
        public void xdrEncode(XdrEncodingStream out) {
            throw new UnsupportedOperationException("an argument, never encoded");
        }
    }
}
