/* Error reporting and small fd helpers shared by the JNI entry points. */
#include "disni_jni.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static void throw_formatted(JNIEnv *env, const char *class_name, const char *message)
{
	jclass cls = (*env)->FindClass(env, class_name);

	if (cls == NULL)
		return; /* FindClass left NoClassDefFoundError pending */
	(*env)->ThrowNew(env, cls, message);
	(*env)->DeleteLocalRef(env, cls);
}

void disni_throw_errno(JNIEnv *env, const char *what, int err)
{
	disni_throw_unchecked(env, "java/io/IOException", what, err);
}

void disni_throw_post(JNIEnv *env, const char *what, int err, int index)
{
	char message[256];

	snprintf(message, sizeof(message), "%s failed: %s [errno %d] [wr %d]", what, strerror(err), err, index);
	throw_formatted(env, "java/io/IOException", message);
}

void disni_throw_unchecked(JNIEnv *env, const char *class_name, const char *what, int err)
{
	char message[256];

	snprintf(message, sizeof(message), "%s failed: %s [errno %d]", what, strerror(err), err);
	throw_formatted(env, class_name, message);
}

int disni_wait_readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };
	int ret = poll(&pfd, 1, timeout_ms < 0 ? -1 : timeout_ms);

	if (ret < 0)
		return errno;
	if (ret == 0)
		return ETIMEDOUT;
	if (pfd.revents & (POLLERR | POLLNVAL))
		return EBADF;
	return 0;
}

int disni_set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return errno;
	if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return errno;
	return 0;
}
