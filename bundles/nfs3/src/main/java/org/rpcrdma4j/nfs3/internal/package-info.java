/**
 * The implementation of the NFSv3 and MOUNT v3 programs: file handles, the inode index,
 * attribute mapping, permission checks and the procedure handlers. Private to the bundle.
 */
package org.rpcrdma4j.nfs3.internal;
