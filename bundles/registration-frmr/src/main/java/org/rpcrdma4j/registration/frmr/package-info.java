/**
 * The FRMR registration strategy: every READ's sink is registered under a fresh key for that
 * READ only and invalidated after it (the seed's {@code rdma_read_chunk_frmr}). With provider
 * fast registration the chain is REG_MR, READ, LOCAL_INV (or READ_WITH_INV on iWARP, as Linux
 * does); without it (user-space verbs such as DiSNI) the sink is registered before the READ and
 * deregistered after it, with the same contract.
 */
@Export
@Version("0.1.0")
package org.rpcrdma4j.registration.frmr;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
