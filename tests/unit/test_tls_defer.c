/* tls_defer.c: certificates are skipped at start-up and loaded for real
 * once a network operation asks for them. */
#include "vcs/git_lazy.h"
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/common.h"
#include "vcs/vcs.h"

static const char bundle[] = "/etc/ssl/certs/ca-certificates.crt";

static bool uses_mbedtls(void)
{
	/* Only a libgit2 on mbedTLS has anything to defer. */
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "libmbedx509"))
			found = true;
	if (f)
		fclose(f);
	return found;
}

static void test_deferred_then_real(void **state)
{
	UNUSED(state);
	git_libgit2_init();
	if (!uses_mbedtls())
		skip();
	/* Before: nothing is parsed, so even a file that is not a
	 * certificate bundle is accepted. */
	assert_int_equal(git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, "/etc/hostname", NULL),
			 0);
	vcs_tls_enable();
	/* After: the real parser runs; junk is refused, the bundle loads. */
	assert_int_not_equal(
		git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, "/etc/hostname", NULL), 0);
	if (access(bundle, R_OK) == 0)
		assert_int_equal(git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, bundle, NULL), 0);
	git_libgit2_shutdown();
}

static int entropy_calls;

static int count_entropy(void *arg, unsigned char *out, size_t len)
{
	UNUSED(arg);
	entropy_calls++;
	memset(out, 0x5a, len);
	return 0;
}

int mbedtls_ctr_drbg_seed(void *ctx, int (*f_entropy)(void *, unsigned char *, size_t),
			  void *p_entropy, const unsigned char *custom, size_t len);

/*
 * The random generator's seeding is put off too: libgit2's call at start-up
 * draws no entropy, and the seeding happens, with the same arguments, when
 * TLS is enabled. (Run in a child: tls_defer's state is per process.)
 */
static int seed_check(void)
{
	void (*drbg_init)(void *);
	static unsigned char ctx[8192] __attribute__((aligned(16)));
	const unsigned char custom[] = "veles";

	*(void **)&drbg_init = dlsym(RTLD_DEFAULT, "mbedtls_ctr_drbg_init");
	if (!drbg_init)
		return 2;
	drbg_init(ctx);
	entropy_calls = 0;
	if (mbedtls_ctr_drbg_seed(ctx, count_entropy, NULL, custom, 5) != 0 || entropy_calls)
		return 3;
	vcs_tls_enable();
	return entropy_calls > 0 ? 0 : 4;
}

static void test_seed_deferred(void **state)
{
	pid_t pid;
	int status = 0;

	UNUSED(state);
	git_libgit2_init();
	if (!uses_mbedtls())
		skip();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(seed_check());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	git_libgit2_shutdown();
}

void mbedtls_havege_init(void *hs);

/* The HAVEGE entropy state is left alone at start-up and filled when TLS
 * is enabled (in a child, as above). */
static int havege_check(void)
{
	static unsigned char hs[65536];
	size_t i;

	memset(hs, 0xa5, sizeof(hs));
	mbedtls_havege_init(hs);
	for (i = 0; i < sizeof(hs); i++)
		if (hs[i] != 0xa5)
			return 3;
	vcs_tls_enable();
	for (i = 0; i < sizeof(hs); i++)
		if (hs[i] != 0xa5)
			return 0;
	return 4;
}

static void test_havege_deferred(void **state)
{
	pid_t pid;
	int status = 0;

	UNUSED(state);
	git_libgit2_init();
	if (!uses_mbedtls() || !dlsym(RTLD_DEFAULT, "mbedtls_havege_poll"))
		skip();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(havege_check());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	git_libgit2_shutdown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_deferred),
		cmocka_unit_test(test_havege_deferred),
		cmocka_unit_test(test_deferred_then_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
