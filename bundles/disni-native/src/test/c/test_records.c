/*
 * Checks the translation of DiSNI 2.1's work-request records into libibverbs' work requests
 * without a device. The records are written byte by byte at the offsets DiSNI's Java side uses
 * (NatPostSendCall: all work requests first, then all SGEs, "next" and "sg_list" as absolute
 * addresses, native byte order), not through our structs, so a layout mistake shows.
 * Exit status 0 when every check passes; each failure is printed.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "disni_records.h"

static int failures;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                      \
		}                                                                        \
	} while (0)

static void put64(uint8_t *at, uint64_t v)
{
	memcpy(at, &v, sizeof(v));
}

static void put32(uint8_t *at, uint32_t v)
{
	memcpy(at, &v, sizeof(v));
}

/* NatIbvSendWR.writeBack + NatRdma.writeBack at 40 (CSIZE 72). */
static void write_send(uint8_t *rec, uint64_t wr_id, uint64_t next, uint64_t sges, uint32_t num_sge, uint32_t opcode,
		uint32_t flags, uint32_t imm, uint64_t remote_addr, uint32_t rkey)
{
	put64(rec + 0, wr_id);
	put64(rec + 8, next);
	put64(rec + 16, sges);
	put32(rec + 24, num_sge);
	put32(rec + 28, opcode);
	put32(rec + 32, flags);
	put32(rec + 36, imm);
	put64(rec + 40, remote_addr);
	put32(rec + 48, rkey);
	put32(rec + 52, 0);
}

/* NatIbvSge.writeBack (CSIZE 16). */
static void write_sge(uint8_t *rec, uint64_t addr, uint32_t length, uint32_t lkey)
{
	put64(rec + 0, addr);
	put32(rec + 8, length);
	put32(rec + 12, lkey);
}

static void test_send_chain(void)
{
	static uint8_t buf[3 * 72 + 4 * 16] __attribute__((aligned(8)));
	uint8_t *wr0 = buf, *wr1 = buf + 72, *wr2 = buf + 144, *sge = buf + 216;
	struct ibv_send_wr wrs[3];

	write_send(wr0, 11, (uintptr_t)wr1, (uintptr_t)sge, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, 0, 0, 0);
	write_send(wr1, 12, (uintptr_t)wr2, (uintptr_t)(sge + 16), 2, IBV_WR_RDMA_WRITE, IBV_SEND_INLINE, 0,
			0x7f0000001000ULL, 0xabcd);
	write_send(wr2, 13, 0, (uintptr_t)(sge + 48), 1, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED | IBV_SEND_FENCE, 0,
			0x7f0000002000ULL, 0x1234);
	write_sge(sge, 0x1000, 100, 7);
	write_sge(sge + 16, 0x2000, 200, 8);
	write_sge(sge + 32, 0x3000, 300, 9);
	write_sge(sge + 48, 0x4000, 4096, 10);

	CHECK(disni_chain_length((uintptr_t)buf, offsetof(struct disni_send_record, next)) == 3);
	memset(wrs, 0xff, sizeof(wrs));
	CHECK(disni_translate_sends((uintptr_t)buf, wrs, 3) == -1);
	CHECK(wrs[0].wr_id == 11 && wrs[0].next == &wrs[1] && wrs[0].num_sge == 1);
	CHECK(wrs[0].opcode == IBV_WR_SEND && wrs[0].send_flags == IBV_SEND_SIGNALED);
	CHECK(wrs[0].sg_list == (struct ibv_sge *)sge);
	CHECK(wrs[0].sg_list[0].addr == 0x1000 && wrs[0].sg_list[0].length == 100 && wrs[0].sg_list[0].lkey == 7);
	CHECK(wrs[1].wr_id == 12 && wrs[1].next == &wrs[2] && wrs[1].num_sge == 2);
	CHECK(wrs[1].opcode == IBV_WR_RDMA_WRITE && wrs[1].send_flags == IBV_SEND_INLINE);
	CHECK(wrs[1].wr.rdma.remote_addr == 0x7f0000001000ULL && wrs[1].wr.rdma.rkey == 0xabcd);
	CHECK(wrs[1].sg_list[1].addr == 0x3000 && wrs[1].sg_list[1].length == 300 && wrs[1].sg_list[1].lkey == 9);
	CHECK(wrs[2].wr_id == 13 && wrs[2].next == NULL && wrs[2].opcode == IBV_WR_RDMA_READ);
	CHECK(wrs[2].send_flags == (IBV_SEND_SIGNALED | IBV_SEND_FENCE));
	CHECK(wrs[2].wr.rdma.remote_addr == 0x7f0000002000ULL && wrs[2].wr.rdma.rkey == 0x1234);
	CHECK(wrs[2].sg_list[0].length == 4096);
	/* fields the record does not carry are zero, not stale */
	CHECK(wrs[0].qp_type.xrc.remote_srqn == 0 && wrs[2].imm_data == 0);
}

static void test_invalidate_key_passes_through_the_union(void)
{
	static uint8_t rec[72] __attribute__((aligned(8)));
	struct ibv_send_wr wr;

	write_send(rec, 1, 0, 0, 0, IBV_WR_SEND_WITH_INV, IBV_SEND_SIGNALED, 0x00c0ffee, 0, 0);
	CHECK(disni_translate_sends((uintptr_t)rec, &wr, 1) == -1);
	CHECK(wr.opcode == IBV_WR_SEND_WITH_INV && wr.invalidate_rkey == 0x00c0ffee && wr.num_sge == 0);
}

static void test_unsupported_opcode_is_named(void)
{
	static uint8_t buf[2 * 72] __attribute__((aligned(8)));
	struct ibv_send_wr wrs[2];

	write_send(buf, 1, (uintptr_t)(buf + 72), 0, 0, IBV_WR_SEND, 0, 0, 0, 0);
	write_send(buf + 72, 2, 0, 0, 0, IBV_WR_ATOMIC_CMP_AND_SWP, 0, 0, 0, 0);
	CHECK(disni_translate_sends((uintptr_t)buf, wrs, 2) == 1);
	write_send(buf + 72, 2, 0, 0, (uint32_t)-1, IBV_WR_SEND, 0, 0, 0, 0);
	CHECK(disni_translate_sends((uintptr_t)buf, wrs, 2) == 1);
}

static void test_cyclic_chain_is_refused(void)
{
	static uint8_t buf[2 * 72] __attribute__((aligned(8)));

	write_send(buf, 1, (uintptr_t)(buf + 72), 0, 0, IBV_WR_SEND, 0, 0, 0, 0);
	write_send(buf + 72, 2, (uintptr_t)buf, 0, 0, IBV_WR_SEND, 0, 0, 0, 0);
	CHECK(disni_chain_length((uintptr_t)buf, offsetof(struct disni_send_record, next)) == 0);
	CHECK(disni_chain_length(0, offsetof(struct disni_send_record, next)) == 0);
}

static void test_receive_chain(void)
{
	static uint8_t buf[2 * 32 + 2 * 16] __attribute__((aligned(8)));
	uint8_t *wr0 = buf, *wr1 = buf + 32, *sge = buf + 64;
	struct ibv_recv_wr wrs[2];

	/* NatIbvRecvWR.writeBack (CSIZE 32) */
	put64(wr0 + 0, 21);
	put64(wr0 + 8, (uintptr_t)wr1);
	put64(wr0 + 16, (uintptr_t)sge);
	put32(wr0 + 24, 1);
	put64(wr1 + 0, 22);
	put64(wr1 + 8, 0);
	put64(wr1 + 16, (uintptr_t)(sge + 16));
	put32(wr1 + 24, 1);
	write_sge(sge, 0x5000, 1024, 3);
	write_sge(sge + 16, 0x6000, 1024, 4);

	CHECK(disni_chain_length((uintptr_t)buf, offsetof(struct disni_recv_record, next)) == 2);
	disni_translate_recvs((uintptr_t)buf, wrs, 2);
	CHECK(wrs[0].wr_id == 21 && wrs[0].next == &wrs[1] && wrs[0].num_sge == 1 && wrs[0].sg_list->addr == 0x5000);
	CHECK(wrs[1].wr_id == 22 && wrs[1].next == NULL && wrs[1].sg_list->lkey == 4);
}

int main(void)
{
	test_send_chain();
	test_invalidate_key_passes_through_the_union();
	test_unsupported_opcode_is_named();
	test_cyclic_chain_is_refused();
	test_receive_chain();
	if (failures != 0) {
		fprintf(stderr, "test_records: %d checks failed\n", failures);
		return 1;
	}
	printf("test_records: all checks passed\n");
	return 0;
}
