/**
 * The FRMR registration strategy: READ sinks under registrations of their own, and no key that
 * grants remote write to a sink outlives its READ (the seed's {@code rdma_read_chunk_frmr}). With
 * provider fast registration the chain is REG_MR, READ, LOCAL_INV (or READ_WITH_INV on iWARP, as
 * Linux does) under a fresh key per READ. Without it (user-space verbs such as DiSNI) each sink
 * window is registered with ibv_reg_mr: once, for local write only, and reused by every READ on
 * InfiniBand and RoCE, where a sink's key never leaves the host; before each READ and deregistered
 * after it on iWARP, where the Read Request shows the sink's STag to the peer.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.registration.frmr;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
