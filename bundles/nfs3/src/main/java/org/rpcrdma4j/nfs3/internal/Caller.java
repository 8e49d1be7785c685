package org.rpcrdma4j.nfs3.internal;

import java.net.InetAddress;
import org.rpcrdma4j.nfs3.localfs.SetIdBits;
import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.rpcrdma4j.nfs3.ExportRule;

/**
 * Caller - the identity a call acts with on one export: the AUTH_SYS credential after the
 * export rule's squashing, and the rule itself (read-only or not).
 *
 * <p>AUTH_NONE and every other flavor act as the rule's anonymous identity.
 */
public final class Caller implements SetIdBits.Identity {

    /** The superuser id. */
    public static final int ROOT = 0;

    private final InetAddress peer;
    private final ExportRule rule;
    private final int uid;
    private final int gid;
    private final int[] groups;

    private Caller(InetAddress peer, ExportRule rule, int uid, int gid, int[] groups) {
        this.peer = peer;
        this.rule = rule;
        this.uid = uid;
        this.gid = gid;
        this.groups = groups;
    }

    /** The identity of a call's credential under an export rule. */
    public static Caller of(InetAddress peer, RpcAuth credential, ExportRule rule) {
        if (!(credential instanceof RpcAuthTypeUnix) || rule.allSquash()) {
            return anonymous(peer, rule);
        }
        RpcAuthTypeUnix unix = (RpcAuthTypeUnix) credential;
        int uid = unix.uid();
        int gid = unix.gid();
        int[] groups = unix.gids() == null ? new int[0] : unix.gids().clone();
        if (rule.rootSquash()) {
            if (uid == ROOT) {
                return anonymous(peer, rule);
            }
            if (gid == ROOT) {
                gid = rule.anonGid();
            }
            for (int i = 0; i < groups.length; i++) {
                if (groups[i] == ROOT) {
                    groups[i] = rule.anonGid();
                }
            }
        }
        return new Caller(peer, rule, uid, gid, groups);
    }

    private static Caller anonymous(InetAddress peer, ExportRule rule) {
        return new Caller(peer, rule, rule.anonUid(), rule.anonGid(), new int[0]);
    }

    /** The peer address the rule was chosen for. */
    public InetAddress peer() {
        return peer;
    }

    /** The export rule that admitted the peer. */
    public ExportRule rule() {
        return rule;
    }

    /** The effective uid. */
    public int uid() {
        return uid;
    }

    /** The effective primary gid. */
    public int gid() {
        return gid;
    }

    /** Whether the caller acts as the superuser. */
    @Override
    public boolean isRoot() {
        return uid == ROOT;
    }

    /** Whether the caller is in a group (primary or supplementary). */
    @Override
    public boolean inGroup(int group) {
        if (gid == group) {
            return true;
        }
        for (int g : groups) {
            if (g == group) {
                return true;
            }
        }
        return false;
    }
}
