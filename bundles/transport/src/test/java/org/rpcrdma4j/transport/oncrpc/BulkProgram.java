package org.rpcrdma4j.transport.oncrpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrOpaque;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.transport.spi.UpperLayerBinding;

/**
 * BulkProgram - a test program whose replies come in every size: NULL; ECHO of an opaque; BULK(n)
 * answering n bytes of a known pattern as an opaque (a READ-like reply with a DDP-eligible item,
 * described by {@link #BINDING}); COUNT, which is not idempotent (it answers how often it ran),
 * for the reply cache; SLOW(ms), which sleeps, for calls in flight; GATED, which waits until
 * {@link #gate} opens, for calls held by the server; TWICE(n), which answers n and then, wrongly,
 * -n (a program that replies twice: the second reply must reach nobody).
 */
final class BulkProgram implements RpcDispatchable {
    static final int PROGRAM = 0x2000_0177;
    static final int VERSION = 1;
    static final int NULL = 0;
    static final int ECHO = 1;
    static final int BULK = 2;
    static final int COUNT = 3;
    static final int SLOW = 4;
    static final int GATED = 5;
    static final int TWICE = 6;

    /** The binding: BULK and ECHO replies carry their opaque as a DDP-eligible item, first in the results. */
    static final UpperLayerBinding BINDING = new UpperLayerBinding() {
        @Override
        public int program() {
            return BulkProgram.PROGRAM;
        }

        @Override
        public boolean isDdpEligibleReply(int version, int procedure) {
            return version == VERSION && (procedure == BULK || procedure == ECHO);
        }

        @Override
        public int locateReplyItem(int version, int procedure, ByteBuffer result) {
            return result.remaining() >= 4 ? 0 : -1;
        }
    };

    final AtomicInteger counted = new AtomicInteger();
    /** GATED calls wait for this latch (open by default). */
    volatile java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(0);

    /** @return byte i of a BULK reply */
    static byte pattern(int i) {
        return (byte) (i * 31 + (i >>> 8) * 7 + 1);
    }

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
            case BULK -> {
                XdrInt n = new XdrInt();
                call.retrieveCall(n);
                byte[] data = new byte[n.intValue()];
                for (int i = 0; i < data.length; i++) {
                    data[i] = pattern(i);
                }
                call.reply(new XdrOpaque(data));
            }
            case COUNT -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(new XdrInt(counted.incrementAndGet()));
            }
            case SLOW -> {
                XdrInt ms = new XdrInt();
                call.retrieveCall(ms);
                try {
                    Thread.sleep(ms.intValue());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                call.reply(XdrVoid.XDR_VOID);
            }
            case GATED -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                call.reply(XdrVoid.XDR_VOID);
            }
            case TWICE -> {
                XdrInt n = new XdrInt();
                call.retrieveCall(n);
                call.reply(new XdrInt(n.intValue()));
                call.reply(new XdrInt(-n.intValue()));
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /** An XDR int argument encoder for hand-built calls. */
    static XdrAble intArg(int value) {
        return new XdrAble() {
            @Override
            public void xdrDecode(XdrDecodingStream xdr) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void xdrEncode(XdrEncodingStream xdr) {
                xdr.xdrEncodeInt(value);
            }
        };
    }
}
