/* Translation of DiSNI 2.1's work-request records (see disni_records.h). */
#include "disni_records.h"

#include <string.h>

/* Counts a chain of records linked by absolute "next" addresses; 0 when empty or too long. */
int disni_chain_length(uint64_t first, size_t next_offset)
{
	int n = 0;
	uint64_t at = first;

	while (at != 0) {
		if (++n > DISNI_MAX_CHAIN)
			return 0;
		at = *(const uint64_t *)(uintptr_t)(at + next_offset);
	}
	return n;
}

/* The opcodes whose operands the 72-byte record can carry (no atomics, no bind, no TSO). */
static int send_opcode_supported(int32_t opcode)
{
	switch (opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		return 1;
	default:
		return 0;
	}
}

/* Fills wrs[0..n) from the records; returns -1 or the index of the first unsupported one. */
int disni_translate_sends(uint64_t first, struct ibv_send_wr *wrs, int n)
{
	const struct disni_send_record *rec = (const struct disni_send_record *)(uintptr_t)first;
	int i;

	for (i = 0; i < n; i++) {
		if (!send_opcode_supported(rec->opcode) || rec->num_sge < 0)
			return i;
		memset(&wrs[i], 0, sizeof(wrs[i]));
		wrs[i].wr_id = rec->wr_id;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		wrs[i].sg_list = (struct ibv_sge *)(uintptr_t)rec->sg_list;
		wrs[i].num_sge = rec->num_sge;
		wrs[i].opcode = (enum ibv_wr_opcode)rec->opcode;
		wrs[i].send_flags = rec->send_flags;
		/* imm_data and invalidate_rkey share the union: the 32 bits pass through unchanged. */
		wrs[i].invalidate_rkey = rec->imm_data;
		wrs[i].wr.rdma.remote_addr = rec->remote_addr;
		wrs[i].wr.rdma.rkey = rec->rkey;
		rec = (const struct disni_send_record *)(uintptr_t)rec->next;
	}
	return -1;
}

void disni_translate_recvs(uint64_t first, struct ibv_recv_wr *wrs, int n)
{
	const struct disni_recv_record *rec = (const struct disni_recv_record *)(uintptr_t)first;
	int i;

	for (i = 0; i < n; i++) {
		wrs[i].wr_id = rec->wr_id;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		wrs[i].sg_list = (struct ibv_sge *)(uintptr_t)rec->sg_list;
		wrs[i].num_sge = rec->num_sge;
		rec = (const struct disni_recv_record *)(uintptr_t)rec->next;
	}
}

