package org.rpcrdma4j.server;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.rpcrdma4j.codec.RpcMessage;

/**
 * AuthSysCredentials - the AUTH_SYS credentials (RFC 5531 appendix A) that calls carried lately,
 * decoded once and kept by their bytes, so that a call carrying one of them again is accepted
 * without decoding it.
 *
 * <p>Why: oncrpc4j decodes every call's credential afresh ({@link RpcCall#accept}): a String for
 * the machine name, an array of gids, and a {@code Subject} with a principal per id in hash sets.
 * In the lab's flight recording of 4 KiB random reads over rxe that was about an eighth of an NFS
 * worker's Java samples. A client sends the same credential bytes with every call of one user
 * (the stamp, which Linux's client sends as zero, its node name, uid, gid, gids), so nearly every
 * call finds its credential here.
 *
 * <p>Safety: a credential is what its bytes say. Two calls whose credential bodies are equal byte
 * for byte decode to equal credentials, whatever connection or client sent them; nothing of a
 * call or its connection is kept. Only a call whose verifier is AUTH_NONE with an empty body
 * (what AUTH_SYS calls carry) is accepted here; any other call, RPCSEC_GSS among them, goes
 * through oncrpc4j's own decode. The kept credential is shared by the calls that carry it: its
 * {@code Subject} is made read-only, so a program that tried to change one call's identity fails
 * at once instead of changing another's. Its {@code gids()} array is shared too: the NFS programs
 * here copy it ({@code Caller}, {@code CallerIdentity}), and nothing may write to it.
 *
 * <p>Bounds: {@value #SLOTS} slots, direct-mapped by the body's hash; a credential replaces the one
 * in its slot. A peer that sends a new credential with every call only replaces entries: what is
 * kept is at most {@value #SLOTS} bodies of at most 400 bytes ({@link RpcMessage#MAX_AUTH_BYTES}).
 *
 * <p>Assumptions: the header passed {@link RpcHeaderCheck#checkCall} (lengths in range, the
 * AUTH_SYS body filled exactly by its fields, so a whole number of XDR words). Threading: any
 * thread; entries are immutable, published through an {@link AtomicReferenceArray}.
 */
final class AuthSysCredentials {
    /** Slots of the table (a power of two). */
    static final int SLOTS = 64;

    /** One kept credential: its body as XDR words, their hash, and what oncrpc4j decoded of them. */
    private record Entry(int hash, int[] body, RpcAuthTypeUnix credential) {
    }

    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
    private final LongAdder hits = new LongAdder();
    private final LongAdder kept = new LongAdder();

    /**
     * accept() - the call of this header, accepted with a kept credential: its xdr positioned
     * after the verifier, as {@link RpcCall#accept} leaves it.
     *
     * @param message the call message ({@code xdr}'s buffer), its header checked
     * @param start the index of the xid
     * @return the accepted call, or null when the credential is not one kept (or not one that is
     *         kept at all): accept the call through oncrpc4j, then {@link #remember} it
     */
    RpcCall accept(int xid, Xdr xdr, Buffer message, int start, RpcTransport transport) {
        int length = keptBodyLength(message, start);
        if (length < 0) {
            return null;
        }
        int at = start + RpcMessage.CREDENTIAL_OFFSET + RpcMessage.AUTH_HEAD_BYTES;
        int hash = hash(message, at, length);
        Entry e = slots.get(slot(hash));
        if (e == null || e.hash != hash || !sameBody(e.body, message, at, length)) {
            return null;
        }
        hits.increment();
        message.position(at + length + RpcMessage.AUTH_HEAD_BYTES);
        return new RpcCall(xid, message.getInt(start + RpcMessage.PROG_OFFSET),
                message.getInt(start + RpcMessage.VERS_OFFSET), message.getInt(start + RpcMessage.PROC_OFFSET),
                e.credential, xdr, transport);
    }

    /**
     * remember() - after oncrpc4j accepted {@code call} from {@code message}: keep its credential
     * when calls may share it (AUTH_SYS with an AUTH_NONE verifier).
     */
    void remember(RpcCall call, Buffer message, int start) {
        int length = keptBodyLength(message, start);
        if (length < 0 || call.getCredential().getClass() != RpcAuthTypeUnix.class) {
            return;
        }
        RpcAuthTypeUnix credential = (RpcAuthTypeUnix) call.getCredential();
        credential.getSubject().setReadOnly();
        int at = start + RpcMessage.CREDENTIAL_OFFSET + RpcMessage.AUTH_HEAD_BYTES;
        int[] body = new int[length / Integer.BYTES];
        for (int i = 0; i < body.length; i++) {
            body[i] = message.getInt(at + i * Integer.BYTES);
        }
        int hash = hash(message, at, length);
        slots.set(slot(hash), new Entry(hash, body, credential));
        kept.increment();
    }

    /** @return calls accepted with a kept credential */
    long hits() {
        return hits.sum();
    }

    /** @return credentials decoded by oncrpc4j and kept (a slot taken or replaced) */
    long kept() {
        return kept.sum();
    }

    /** @return credentials kept now (tests: never more than {@value #SLOTS}) */
    int size() {
        int n = 0;
        for (int i = 0; i < SLOTS; i++) {
            if (slots.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * @return the length of the AUTH_SYS credential body of an RPC version 2 call whose verifier
     *         is AUTH_NONE with an empty body; -1 for any other call
     */
    private static int keptBodyLength(Buffer message, int start) {
        if (message.getInt(start + RpcMessage.RPCVERS_OFFSET) != RpcMessage.RPC_VERSION) {
            return -1;
        }
        int at = start + RpcMessage.CREDENTIAL_OFFSET;
        if (message.getInt(at) != RpcMessage.AUTH_SYS) {
            return -1;
        }
        int length = message.getInt(at + Integer.BYTES);
        if (length % Integer.BYTES != 0) {
            return -1; // RpcHeaderCheck refuses such a body; never read words past it
        }
        int verifier = at + RpcMessage.AUTH_HEAD_BYTES + length;
        if (message.getInt(verifier) != RpcMessage.AUTH_NONE || message.getInt(verifier + Integer.BYTES) != 0) {
            return -1;
        }
        return length;
    }

    private static int hash(Buffer message, int at, int length) {
        int h = length;
        for (int i = 0; i < length; i += Integer.BYTES) {
            h = 31 * h + message.getInt(at + i);
        }
        return h ^ (h >>> 16);
    }

    private static int slot(int hash) {
        return hash & (SLOTS - 1);
    }

    private static boolean sameBody(int[] body, Buffer message, int at, int length) {
        if (body.length * Integer.BYTES != length) {
            return false;
        }
        for (int i = 0; i < body.length; i++) {
            if (body[i] != message.getInt(at + i * Integer.BYTES)) {
                return false;
            }
        }
        return true;
    }
}
