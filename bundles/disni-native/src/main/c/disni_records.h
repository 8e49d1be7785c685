/*
 * The work-request records DiSNI 2.1's Java side serialises (see disni_verbs.c for the layout)
 * and their translation into libibverbs' work requests. Separate from the JNI entry points so
 * that a plain C test (test_records.c, "make check") checks the translation without a device.
 */
#ifndef DISNI_RECORDS_H
#define DISNI_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/* Longest chain one post accepts: a guard against a corrupt or cyclic "next" list. */
#define DISNI_MAX_CHAIN 4096
/* Chains up to this length are translated on the stack, longer ones in a heap array. */
#define DISNI_STACK_CHAIN 16

struct disni_send_record {
	uint64_t wr_id;
	uint64_t next;
	uint64_t sg_list;
	int32_t num_sge;
	int32_t opcode;
	uint32_t send_flags;
	uint32_t imm_data;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t reserved;
	uint8_t unused[16];
};

struct disni_recv_record {
	uint64_t wr_id;
	uint64_t next;
	uint64_t sg_list;
	int32_t num_sge;
	int32_t pad;
};

_Static_assert(sizeof(struct disni_send_record) == 72, "NatIbvSendWR.CSIZE");
_Static_assert(offsetof(struct disni_send_record, send_flags) == 32, "NatIbvSendWR.SENDFLAGS_OFFSET");
_Static_assert(offsetof(struct disni_send_record, remote_addr) == 40, "NatIbvSendWR.REMOTEADDR_OFFSET");
_Static_assert(offsetof(struct disni_send_record, rkey) == 48, "NatIbvSendWR.RKEY_OFFSET");
_Static_assert(sizeof(struct disni_recv_record) == 32, "NatIbvRecvWR.CSIZE");
_Static_assert(sizeof(struct ibv_sge) == 16, "NatIbvSge.CSIZE");
_Static_assert(sizeof(struct ibv_wc) == 48, "IbvWC.CSIZE");
_Static_assert(offsetof(struct ibv_wc, qp_num) == 28, "IbvWC layout");

/*
 * Counts a chain of records linked by absolute "next" addresses (next_offset: where a record
 * keeps it). Returns the length, or 0 when the chain is empty or longer than DISNI_MAX_CHAIN.
 */
int disni_chain_length(uint64_t first, size_t next_offset);

/*
 * Fills wrs[0..n) from the n send records starting at first, linked in order; the SGE arrays are
 * used in place. Returns -1, or the index of the first record whose opcode the record cannot
 * carry (then wrs is incomplete and MUST NOT be posted).
 */
int disni_translate_sends(uint64_t first, struct ibv_send_wr *wrs, int n);

/* Fills wrs[0..n) from the n receive records starting at first, linked in order. */
void disni_translate_recvs(uint64_t first, struct ibv_recv_wr *wrs, int n);

#endif
