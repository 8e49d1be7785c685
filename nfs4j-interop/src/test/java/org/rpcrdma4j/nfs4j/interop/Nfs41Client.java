package org.rpcrdma4j.nfs4j.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.dcache.nfs.nfsstat;
import org.dcache.nfs.v4.CompoundBuilder;
import org.dcache.nfs.v4.xdr.CB_COMPOUND4args;
import org.dcache.nfs.v4.xdr.COMPOUND4args;
import org.dcache.nfs.v4.xdr.COMPOUND4res;
import org.dcache.nfs.v4.xdr.CREATE_SESSION4resok;
import org.dcache.nfs.v4.xdr.EXCHANGE_ID4resok;
import org.dcache.nfs.v4.xdr.nfs4_prot;
import org.dcache.nfs.v4.xdr.state_protect_how4;
import org.dcache.nfs.v4.xdr.uint32_t;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.rpcrdma4j.client.CallRequest;
import org.rpcrdma4j.client.ClientConfig;
import org.rpcrdma4j.client.RpcRdmaClient;
import org.rpcrdma4j.client.RpcReply;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.verbs.VerbsProvider;

/**
 * Nfs41Client - an NFSv4.1 client over the Java RPC-over-RDMA client, built from nfs4j's own XDR
 * types and {@link CompoundBuilder}: COMPOUNDs as AUTH_SYS root, EXCHANGE_ID and CREATE_SESSION
 * with the back channel on its connection, SEQUENCE with its slot's sequence id, and a callback
 * program that records every backward call (CB_COMPOUND decoded) and answers it NFS4_OK.
 */
final class Nfs41Client implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** The callback program number the client names in CREATE_SESSION (CompoundBuilder's). */
    static final int CB_PROGRAM = 123;
    static final int CB_COMPOUND = 1;
    private static final int NFSPROC4_COMPOUND = 1;

    private final RpcRdmaClient rdma;
    private final String name;
    /** (program, version, procedure) of every backward call received. */
    final List<int[]> backwardCalls = new CopyOnWriteArrayList<>();
    /** The arguments of every CB_COMPOUND received. */
    final List<CB_COMPOUND4args> callbackCompounds = new CopyOnWriteArrayList<>();
    private int xid = 0x7000;
    private EXCHANGE_ID4resok exchanged;
    private CREATE_SESSION4resok session;
    private int slotSequence;
    /** How many replies carried their READ data in a write chunk. */
    int repliesWithWriteChunk;

    /** Connects with a callback program that answers every backward call. */
    static Nfs41Client connect(VerbsProvider provider, InetSocketAddress server, String name) throws Exception {
        return new Nfs41Client(provider, server, name, true);
    }

    /** Connects with a callback program that never answers. */
    static Nfs41Client connectSilent(VerbsProvider provider, InetSocketAddress server, String name) throws Exception {
        return new Nfs41Client(provider, server, name, false);
    }

    private Nfs41Client(VerbsProvider provider, InetSocketAddress server, String name, boolean answers)
            throws Exception {
        this.name = name;
        this.rdma = RpcRdmaClient.connect(provider, server, ClientConfig.builder().progressThread(true)
                .backchannel(answers ? this::answerCallback : call -> null, 2).build());
    }

    /**
     * The callback program: records (program, version, procedure), decodes CB_COMPOUND's
     * arguments, and answers SUCCESS: no results for CB_NULL, for CB_COMPOUND status NFS4_OK with
     * an empty tag and no operation results.
     */
    private ByteBuffer answerCallback(ByteBuffer call) throws Exception {
        int callXid = call.getInt(RpcMessage.XID_OFFSET);
        int procedure = call.getInt(RpcMessage.PROC_OFFSET);
        backwardCalls.add(new int[] {call.getInt(RpcMessage.PROG_OFFSET), call.getInt(RpcMessage.VERS_OFFSET), procedure});
        if (procedure == CB_COMPOUND) {
            byte[] bytes = new byte[call.remaining()];
            call.duplicate().get(bytes);
            int argumentsAt = RpcMessage.argumentsOffset(call);
            Xdr in = new Xdr(bytes);
            in.beginDecoding();
            for (int i = 0; i < argumentsAt / 4; i++) {
                in.xdrDecodeInt();
            }
            CB_COMPOUND4args arguments = new CB_COMPOUND4args();
            arguments.xdrDecode(in);
            callbackCompounds.add(arguments);
        }
        // xid, REPLY, MSG_ACCEPTED, verifier AUTH_NONE of length 0, SUCCESS (+ CB_COMPOUND4res).
        ByteBuffer reply = RpcMessage.putAcceptedReplyHeader(ByteBuffer.allocate(36), callXid, RpcMessage.SUCCESS);
        if (procedure == CB_COMPOUND) {
            reply.putInt(nfsstat.NFS_OK).putInt(0).putInt(0);
        }
        return reply.flip();
    }

    /** Sends one COMPOUND (AUTH_SYS as root) and returns its decoded result. */
    COMPOUND4res compound(COMPOUND4args args) throws Exception {
        return compound(args, 0);
    }

    /**
     * Sends one COMPOUND whose last operation is a READ, offering a write chunk for its data as
     * the Linux client does (RFC 8267: the READ data is the COMPOUND's DDP-eligible item), and
     * decodes the result with the data put back where the server took it out: after the data's
     * length, the reply's last word.
     *
     * @param writeChunk the write chunk's capacity, 0 for none
     */
    COMPOUND4res compound(COMPOUND4args args, int writeChunk) throws Exception {
        Xdr xdr = new Xdr(2 * 1024 * 1024);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(++xid);
        xdr.xdrEncodeInt(RpcMessage.CALL);
        xdr.xdrEncodeInt(RpcMessage.RPC_VERSION);
        xdr.xdrEncodeInt(nfs4_prot.NFS4_PROGRAM);
        xdr.xdrEncodeInt(nfs4_prot.NFS_V4);
        xdr.xdrEncodeInt(NFSPROC4_COMPOUND);
        // AUTH_SYS: stamp, machine name "", uid 0, gid 0, no groups (20 bytes); verifier AUTH_NONE.
        xdr.xdrEncodeInt(RpcMessage.AUTH_SYS);
        xdr.xdrEncodeInt(20);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        xdr.xdrEncodeInt(0);
        args.xdrEncode(xdr);
        xdr.endEncoding();
        ByteBuffer message = xdr.asBuffer().toByteBuffer();
        CallRequest.Builder request = CallRequest.builder(message);
        if (writeChunk > 0) {
            request.writeChunk(writeChunk);
        }
        RpcReply reply = rdma.call(request.build(), TIMEOUT);
        ByteBuffer body = reply.body().duplicate();
        int placed = reply.writeChunkCount() == 0 ? 0 : reply.writeChunk(0).remaining();
        int paddedPlaced = (int) org.rpcrdma4j.codec.Xdr.roundUp(placed);
        byte[] bytes = new byte[body.remaining() + paddedPlaced];
        body.get(bytes, 0, body.remaining());
        if (placed > 0) {
            repliesWithWriteChunk++;
            reply.writeChunk(0).get(bytes, bytes.length - paddedPlaced, placed);
        }
        ByteBuffer view = ByteBuffer.wrap(bytes);
        assertEquals(xid, view.getInt(0), "the reply's xid");
        assertEquals(RpcMessage.REPLY, view.getInt(RpcMessage.MSG_TYPE_OFFSET), "REPLY");
        assertEquals(RpcMessage.MSG_ACCEPTED, view.getInt(RpcMessage.REPLY_STAT_OFFSET), "MSG_ACCEPTED");
        int acceptStatAt = RpcMessage.acceptStatOffset(view);
        assertEquals(RpcMessage.SUCCESS, view.getInt(acceptStatAt), "SUCCESS");
        Xdr in = new Xdr(bytes);
        in.beginDecoding();
        for (int i = 0; i < (acceptStatAt + 4) / 4; i++) {
            in.xdrDecodeInt();
        }
        COMPOUND4res result = new COMPOUND4res();
        result.xdrDecode(in);
        in.endDecoding();
        return result;
    }

    /** EXCHANGE_ID for a new client owner; its result. */
    EXCHANGE_ID4resok exchangeId() throws Exception {
        COMPOUND4res exchange = compound(new CompoundBuilder().withMinorversion(1)
                .withExchangeId("rpcrdma4j.org", "Nfs41Client", name + "-" + System.nanoTime(),
                        0, state_protect_how4.SP4_NONE)
                .withTag("exchange_id").build());
        assertEquals(nfsstat.NFS_OK, exchange.status, "EXCHANGE_ID");
        exchanged = exchange.resarray.get(0).opexchange_id.eir_resok4;
        return exchanged;
    }

    /** CREATE_SESSION asking for the back channel on this connection; its result. */
    CREATE_SESSION4resok createSessionWithBackChannel() throws Exception {
        COMPOUND4args create = new CompoundBuilder().withMinorversion(1)
                .withCreatesession(exchanged.eir_clientid, exchanged.eir_sequenceid)
                .withTag("create_session").build();
        create.argarray[0].opcreate_session.csa_flags = new uint32_t(nfs4_prot.CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
        COMPOUND4res created = compound(create);
        assertEquals(nfsstat.NFS_OK, created.status, "CREATE_SESSION");
        session = created.resarray.get(0).opcreate_session.csr_resok4;
        slotSequence = 0;
        return session;
    }

    /** EXCHANGE_ID, CREATE_SESSION with the back channel, RECLAIM_COMPLETE: ready for OPEN. */
    Nfs41Client mount() throws Exception {
        exchangeId();
        createSessionWithBackChannel();
        COMPOUND4res complete = compound(sequenced().withReclaimComplete().withTag("reclaim_complete").build());
        assertEquals(nfsstat.NFS_OK, complete.status, "RECLAIM_COMPLETE");
        return this;
    }

    /** A COMPOUND that starts with SEQUENCE on slot 0 with its next sequence id (the builder adds one to the id it is given). */
    CompoundBuilder sequenced() {
        return new CompoundBuilder().withMinorversion(1)
                .withSequence(false, session.csr_sessionid, slotSequence++, 0, 0);
    }

    EXCHANGE_ID4resok exchanged() {
        return exchanged;
    }

    CREATE_SESSION4resok session() {
        return session;
    }

    @Override
    public void close() {
        rdma.close();
    }
}
