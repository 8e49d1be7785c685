package org.rpcrdma4j.transport.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcMessage;
import org.rpcrdma4j.codec.Xdr;

/**
 * ArgumentsOffsetTest - where a call's procedure arguments begin, as the duplicate request cache
 * hands it to an upper-layer binding: after the credential and the verifier, whatever their
 * lengths, across the views a call can span; -1 for a header no RFC 5531 peer sends.
 */
class ArgumentsOffsetTest {

    /** A call with a credential and verifier of these body lengths, then the int 0x41524753 ("ARGS"). */
    private static ByteBuffer call(int credentialBytes, int verifierBytes) {
        int cred = (int) Xdr.roundUp(credentialBytes);
        int verf = (int) Xdr.roundUp(verifierBytes);
        ByteBuffer b = ByteBuffer.allocate(RpcMessage.CALL_FIXED_BYTES + RpcMessage.AUTH_HEAD_BYTES + cred
                + RpcMessage.AUTH_HEAD_BYTES + verf + Xdr.UNIT_BYTES);
        b.putInt(7).putInt(RpcMessage.CALL).putInt(RpcMessage.RPC_VERSION).putInt(100003).putInt(4).putInt(1);
        b.putInt(RpcMessage.AUTH_SYS).putInt(credentialBytes).position(b.position() + cred);
        b.putInt(RpcMessage.AUTH_NONE).putInt(verifierBytes).position(b.position() + verf);
        b.putInt(0x41524753);
        return b.flip();
    }

    @Test
    void theArgumentsFollowTheCredentialAndTheVerifierRoundedUp() {
        for (int[] lengths : new int[][] {{0, 0}, {1, 0}, {5, 3}, {84, 0}, {400, 400}}) {
            ByteBuffer call = call(lengths[0], lengths[1]);
            int at = CallBridge.argumentsOffset(List.of(call), call.remaining());
            assertEquals(call.remaining() - 4, at, "credential " + lengths[0] + ", verifier " + lengths[1]);
            assertEquals(0x41524753, call.getInt(at));
        }
    }

    @Test
    void aCallSplitAcrossViewsIsReadInPlace() {
        ByteBuffer call = call(20, 0);
        for (int split = 1; split < call.remaining(); split++) {
            List<ByteBuffer> views = List.of(call.duplicate().limit(split), call.duplicate().position(split));
            assertEquals(call.remaining() - 4, CallBridge.argumentsOffset(views, call.remaining()), "split at " + split);
        }
    }

    @Test
    void anAuthBodyBeyond400BytesOrBeyondTheCallGivesNoOffset() {
        assertEquals(-1, CallBridge.argumentsOffset(List.of(call(404, 0)), call(404, 0).remaining()), "credential of 404");
        assertEquals(-1, CallBridge.argumentsOffset(List.of(call(0, 401)), call(0, 401).remaining()), "verifier of 401");
        ByteBuffer negative = call(0, 0).putInt(28, -8);
        assertEquals(-1, CallBridge.argumentsOffset(List.of(negative), negative.remaining()), "length with the top bit");
        ByteBuffer call = call(100, 0);
        assertEquals(-1, CallBridge.argumentsOffset(List.of(call), 24 + 8 + 50), "credential cut off");
        assertEquals(-1, CallBridge.argumentsOffset(List.of(call), 30), "shorter than a credential header");
    }
}
