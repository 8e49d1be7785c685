package org.rpcrdma4j.verbs.disni;

import com.ibm.disni.util.MemBuf;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.impl.NatIbvSendWR;
import com.ibm.disni.verbs.impl.NatPostSendCall;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedList;
import java.util.List;
import org.rpcrdma4j.verbs.Errno;
import org.rpcrdma4j.verbs.QueuePairAttributes;
import org.rpcrdma4j.verbs.ScatterGatherElement;
import org.rpcrdma4j.verbs.SendOpcode;
import org.rpcrdma4j.verbs.SendWorkRequest;
import org.rpcrdma4j.verbs.VerbsException;

/**
 * Posts send-queue work requests through DiSNI's stateful post-send calls. A DiSNI call fixes the
 * opcode and the SGE count when it is built, and lets the id, flags, remote address, rkey and SGE
 * fields change; so one call per (opcode, SGE count) is built on first use and reused for every
 * later post of that shape: steady state allocates nothing.
 *
 * <p>Send With Invalidate: DiSNI's request modifier has no setter for the key to invalidate, which
 * its record keeps at offset 36 (imm_data / invalidate_rkey, one union in ibv_send_wr). The poster
 * writes it there itself, in the call's own command buffer (as {@link DisniCompletionQueue} reads
 * its poll records); libdisni passes the 32 bits through as invalidate_rkey. The key goes into
 * wr.rdma.rkey as well (offset {@value #RECORD_RDMA_RKEY}): rdma-core's siw provider reads the STag
 * to invalidate from there, and with only invalidate_rkey set it names STag 0 (or the previous
 * request's rkey), which the iWARP peer answers with a TERMINATE "STag cannot be invalidated" that
 * kills the connection. Offered only where the device reports the capability
 * (IBV_DEVICE_MEM_MGT_EXTENSIONS).
 *
 * <p>Not thread-safe: the queue pair serialises posts.
 */
final class SendPoster {
    /** enum ibv_wr_opcode IBV_WR_SEND_WITH_INV (DiSNI 2.1 names no constant for it). */
    static final int IBV_WR_SEND_WITH_INV = 9;
    /** Offset of imm_data / invalidate_rkey in DiSNI's 72-byte send record (NatIbvSendWR). */
    static final int RECORD_INVALIDATE_RKEY = 36;
    /** Offset of wr.rdma.rkey in the record (after wr.rdma.remote_addr at 40). */
    static final int RECORD_RDMA_RKEY = 48;

    private static final int OP_SEND = 0;
    private static final int OP_WRITE = 1;
    private static final int OP_READ = 2;
    private static final int OP_SEND_WITH_INV = 3;
    private static final int[] IBV_OPCODES = {IbvSendWR.IBV_WR_SEND, IbvSendWR.IBV_WR_RDMA_WRITE, IbvSendWR.IBV_WR_RDMA_READ,
        IBV_WR_SEND_WITH_INV};
    private static final Field COMMAND_BUFFER = commandBufferField();

    private final IbvQP qp;
    private final QueuePairAttributes attributes;
    private final boolean remoteInvalidation;
    private final SVCPostSend[][] calls;
    /** For SEND_WITH_INV calls: the call's command buffer (native order), where the key is written. */
    private final ByteBuffer[] invalidateRecords;

    /**
     * @param remoteInvalidation whether the device can post SEND_WITH_INV (its capabilities say so);
     *        without it such a request is refused with EINVAL before DiSNI
     */
    SendPoster(IbvQP qp, QueuePairAttributes attributes, boolean remoteInvalidation) {
        this.qp = qp;
        this.attributes = attributes;
        this.remoteInvalidation = remoteInvalidation;
        this.calls = new SVCPostSend[IBV_OPCODES.length][attributes.maxSendSge() + 1];
        this.invalidateRecords = new ByteBuffer[attributes.maxSendSge() + 1];
    }

    /** Checks and posts one request; index is its position in the caller's chain. */
    void post(SendWorkRequest wr, int index) throws VerbsException {
        int op = opcodeIndex(wr.opcode(), index);
        if (op == OP_SEND_WITH_INV && !remoteInvalidation) {
            throw new VerbsException(wr + ": the device cannot post SEND_WITH_INV (no IBV_DEVICE_MEM_MGT_EXTENSIONS)", Errno.EINVAL, index);
        }
        int sges = wr.sgeCount();
        if (sges > attributes.maxSendSge()) {
            throw new VerbsException(wr + " has more SGEs than the queue pair's " + attributes.maxSendSge(), Errno.EINVAL, index);
        }
        if ((wr.flags() & SendWorkRequest.INLINE) != 0 && inlineLength(wr) > attributes.maxInlineData()) {
            throw new VerbsException(wr + " carries more inline data than " + attributes.maxInlineData(), Errno.EINVAL, index);
        }
        try {
            SVCPostSend call = calls[op][sges];
            if (call == null) {
                call = build(IBV_OPCODES[op], sges);
                calls[op][sges] = call;
                if (op == OP_SEND_WITH_INV) {
                    invalidateRecords[sges] = commandBufferOf(call);
                }
            }
            SVCPostSend.SendWRMod mod = call.getWrMod(0);
            if (op == OP_SEND_WITH_INV) {
                int record = ((NatIbvSendWR) mod).getBufPosition();
                invalidateRecords[sges].putInt(record + RECORD_INVALIDATE_RKEY, wr.invalidateKey());
            }
            mod.setWr_id(wr.id());
            mod.setSend_flags(wr.flags());
            mod.getRdmaMod().setRemote_addr(wr.remoteAddress());
            // libsiw (rdma-core's siw provider) takes the STag a SEND_WITH_INV invalidates from
            // wr.rdma.rkey, not from invalidate_rkey; a SEND leaves wr.rdma unused everywhere else.
            mod.getRdmaMod().setRkey(op == OP_SEND_WITH_INV ? wr.invalidateKey() : wr.rkey());
            for (int i = 0; i < sges; i++) {
                ScatterGatherElement sge = wr.sge(i);
                SVCPostSend.SgeMod sgeMod = mod.getSgeMod(i);
                sgeMod.setAddr(sge.address());
                sgeMod.setLength(sge.length());
                sgeMod.setLkey(sge.lkey());
            }
            call.execute();
        } catch (IOException e) {
            VerbsException v = DisniErrors.toVerbs("ibv_post_send of " + wr, e);
            throw new VerbsException(v.getMessage(), v.errno(), index);
        }
    }

    private static int opcodeIndex(SendOpcode opcode, int index) throws VerbsException {
        switch (opcode) {
            case SEND:
                return OP_SEND;
            case RDMA_WRITE:
                return OP_WRITE;
            case RDMA_READ:
                return OP_READ;
            case SEND_WITH_INV:
                return OP_SEND_WITH_INV;
            default:
                // RDMA_READ_WITH_INV, LOCAL_INV, REG_MR: user-space verbs have no fast registration (the capabilities say no)
                throw new VerbsException(opcode + " is not supported by user-space verbs", Errno.EINVAL, index);
        }
    }

    private static long inlineLength(SendWorkRequest wr) {
        long total = 0;
        for (int i = 0; i < wr.sgeCount(); i++) {
            total += wr.sge(i).length();
        }
        return total;
    }

    private SVCPostSend build(int ibvOpcode, int sges) throws IOException {
        IbvSendWR wr = new IbvSendWR();
        wr.setOpcode(ibvOpcode);
        LinkedList<IbvSge> list = new LinkedList<>();
        for (int i = 0; i < sges; i++) {
            list.add(new IbvSge());
        }
        wr.setSg_list(list);
        wr.setNum_sge(sges);
        List<IbvSendWR> wrs = new ArrayList<>(1);
        wrs.add(wr);
        return qp.postSend(wrs, null);
    }

    /** The command buffer DiSNI serialises a call's records into, in native order. */
    private static ByteBuffer commandBufferOf(SVCPostSend call) throws VerbsException {
        try {
            MemBuf buffer = (MemBuf) COMMAND_BUFFER.get(call);
            return buffer.getBuffer().duplicate().order(ByteOrder.nativeOrder());
        } catch (IllegalAccessException | ClassCastException e) {
            throw new VerbsException("reaching DiSNI's send records: " + e, DisniErrors.EIO, e);
        }
    }

    private static Field commandBufferField() {
        try {
            Field f = NatPostSendCall.class.getDeclaredField("cmd");
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("not DiSNI 2.1: NatPostSendCall.cmd is missing", e);
        }
    }

    /** Frees every call built (their native command buffers). */
    void free() {
        for (SVCPostSend[] byCount : calls) {
            for (int i = 0; i < byCount.length; i++) {
                if (byCount[i] != null) {
                    byCount[i].free();
                    byCount[i] = null;
                }
            }
        }
        Arrays.fill(invalidateRecords, null);
    }
}
