/* tls_defer.c: certificates are skipped at start-up and loaded for real
 * once a network operation asks for them. */
#include <git2.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deferred_then_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
