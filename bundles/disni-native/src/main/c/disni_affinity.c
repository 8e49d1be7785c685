/*
 * com.ibm.disni.util.NativeAffinity: the calling thread's CPU affinity as a 64-bit mask (CPUs
 * 0..63). DiSNI declares no checked exception here, so failures throw unchecked exceptions:
 * IllegalArgumentException for an empty or unusable mask, IllegalStateException otherwise.
 */
#define _GNU_SOURCE
#include "disni_jni.h"

#include <errno.h>
#include <sched.h>

#define CLASS(name) Java_com_ibm_disni_util_NativeAffinity_##name
#define MASK_BITS 64

JNIEXPORT void JNICALL CLASS(_1setAffinity)(JNIEnv *env, jclass cls, jlong mask)
{
	cpu_set_t set;
	int cpu;

	(void)cls;
	if (mask == 0) {
		disni_throw_unchecked(env, "java/lang/IllegalArgumentException", "sched_setaffinity (empty mask)", EINVAL);
		return;
	}
	CPU_ZERO(&set);
	for (cpu = 0; cpu < MASK_BITS; cpu++)
		if (((uint64_t)mask >> cpu) & 1u)
			CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		disni_throw_unchecked(env, errno == EINVAL ? "java/lang/IllegalArgumentException" : "java/lang/IllegalStateException",
				"sched_setaffinity", errno);
}

JNIEXPORT jlong JNICALL CLASS(_1getAffinity)(JNIEnv *env, jclass cls)
{
	cpu_set_t set;
	uint64_t mask = 0;
	int cpu;

	(void)cls;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		disni_throw_unchecked(env, "java/lang/IllegalStateException", "sched_getaffinity", errno);
		return 0;
	}
	for (cpu = 0; cpu < MASK_BITS; cpu++)
		if (CPU_ISSET(cpu, &set))
			mask |= (uint64_t)1 << cpu;
	return (jlong)mask;
}
