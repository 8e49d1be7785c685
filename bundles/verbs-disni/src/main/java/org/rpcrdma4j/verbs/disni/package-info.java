/**
 * The DiSNI verbs provider: rpcrdma4j's verbs contract over DiSNI 2.1 (com.ibm.disni), whose
 * native half is rpcrdma4j's libdisni over libibverbs and librdmacm. Real RDMA NICs, soft-RoCE
 * (rxe) and soft-iWARP (siw).
 *
 * <p>Private to its bundle: OSGi consumers see only the {@code VerbsProvider} service named
 * {@value org.rpcrdma4j.verbs.disni.DisniProvider#NAME}; on the module path
 * {@code ServiceLoader.load(VerbsProvider.class)} finds {@link org.rpcrdma4j.verbs.disni.DisniProvider}.
 *
 * <p>What DiSNI 2.1 lacks (device listing and limits, private data on accept and reject and in
 * events, READ depths, event status) comes from {@code org.rpcrdma4j.disni.ext.DisniExtensions}
 * in the same native library. User-space verbs have no fast registration: the capabilities say
 * so and the FRMR strategy registers per request.
 */
package org.rpcrdma4j.verbs.disni;
