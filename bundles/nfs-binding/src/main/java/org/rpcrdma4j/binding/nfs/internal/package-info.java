/**
 * The parsers behind the NFS binding: bounds-checked XDR steps, the NFSv3 READ/READLINK results
 * and the NFSv4.x COMPOUND walk. Private to the bundle.
 */
package org.rpcrdma4j.binding.nfs.internal;
